import type { IncomingHttpHeaders } from 'node:http';
import { connectionHint } from '../api/connection-hint.js';
import { isRecord } from '../json-value.js';
import type { Kind } from '../kinds/kind.js';
import { type DoctorLine, line } from './doctor-line.js';
import { type RawAnswer, rawGet } from './raw-get.js';

export interface ReadCheckOptions {
  /** The service's base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly kinds: readonly Kind[];
  /** Milliseconds a request may take. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** What the key's line says when the service refuses it: where the key comes from. */
const KEY_SOURCE = 'EDGE_API_KEY (or --api-key)';

/**
 * The read-only checks: the URL answers, over trusted TLS, the key is
 * accepted with `Service-Version: 2`, the budget left when the service says
 * it, and each listed kind's envelope and paging. One GET of the first page
 * (limit 1) of each kind and, when there is a next page, one more: never
 * more than two per kind, so the budget is not spent to find anything out.
 */
export async function readChecks(options: ReadCheckOptions): Promise<DoctorLine[]> {
  const lines: DoctorLine[] = [];
  const listed = options.kinds.flatMap((kind) =>
    kind.probe?.list === undefined ? [] : [{ kind, list: kind.probe.list }],
  );
  const first = listed[0];
  const url = new URL(`${options.baseUrl}${first?.list.path ?? '/'}?limit=1`);
  const get = (target: URL): Promise<RawAnswer> =>
    rawGet(target, {
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  const answer = await get(url);
  const secure = url.protocol === 'https:';
  if (answer.type === 'network') {
    if (answer.failure === 'certificate_rejected' || answer.failure === 'plain_http') {
      lines.push(
        line('connection.url', `${options.baseUrl} answers`, 'the TCP connection was accepted', 'holds'),
      );
      lines.push(
        line(
          'connection.tls',
          "the service's TLS certificate is trusted",
          `${answer.failure === 'plain_http' ? 'the server speaks plain HTTP, not TLS' : `certificate rejected: ${answer.detail}`}; ${connectionHint(answer.failure, url.origin)}`,
          'differs',
        ),
      );
      return lines;
    }
    lines.push(
      line(
        'connection.url',
        `${options.baseUrl} answers`,
        withHint(
          `no answer: ${answer.failure} (${answer.detail})`,
          connectionHint(answer.failure, url.origin),
        ),
        'differs',
      ),
    );
    return lines;
  }
  lines.push(line('connection.url', `${options.baseUrl} answers`, `HTTP ${answer.status}`, 'holds'));
  lines.push(
    secure
      ? line('connection.tls', "the service's TLS certificate is trusted", 'the handshake succeeded', 'holds')
      : line(
          'connection.tls',
          "the service's TLS certificate is trusted",
          'plain HTTP: no TLS to check',
          'unknown',
        ),
  );
  if (answer.status === 401 || answer.status === 403) {
    lines.push(
      line(
        'connection.key',
        'the API key is accepted',
        `HTTP ${answer.status}: the key was refused; check ${KEY_SOURCE}`,
        'differs',
      ),
    );
    return lines;
  }
  lines.push(
    line(
      'connection.key',
      'the API key is accepted',
      `HTTP ${answer.status}`,
      answer.status < 400 ? 'holds' : 'differs',
    ),
  );
  lines.push(
    line(
      'connection.service_version',
      'requests with Service-Version: 2 are served',
      answer.status === 200 ? 'HTTP 200' : `HTTP ${answer.status}${messageOf(answer.json)}`,
      answer.status === 200 ? 'holds' : 'differs',
    ),
  );
  lines.push(budgetLine(answer.headers));
  if (answer.status !== 200) return lines;

  for (const [index, { kind, list }] of listed.entries()) {
    const page = index === 0 ? answer : await get(new URL(`${options.baseUrl}${list.path}?limit=1`));
    lines.push(...listLines(kind, list, page, url.origin));
  }
  // Paging is checked after the shapes, one kind at a time: a next page only where one exists.
  for (const { kind, list } of listed) {
    lines.push(await pagingLine(kind, list, options.baseUrl, get));
  }
  return lines;
}

function listLines(
  kind: Kind,
  list: { readonly path: string; readonly key: string },
  page: RawAnswer,
  origin: string,
): DoctorLine[] {
  const assumption = `GET ${list.path} answers {"${list.key}": [...], "uri", "next_page_uri"} and its items have the ${kind.title} shape`;
  const check = `list.${kind.name}`;
  if (page.type === 'network') {
    return [
      line(
        check,
        assumption,
        withHint(`no answer: ${page.failure}`, connectionHint(page.failure, origin)),
        'differs',
      ),
    ];
  }
  if (page.status !== 200)
    return [line(check, assumption, `HTTP ${page.status}${messageOf(page.json)}`, 'differs')];
  const problem = envelopeProblem(kind, list.key, page.json);
  return [
    line(check, assumption, problem ?? 'HTTP 200, that shape', problem === undefined ? 'holds' : 'differs'),
  ];
}

/** What is wrong with a list page, or undefined when it has the spec's envelope and every item reads. */
function envelopeProblem(kind: Kind, key: string, body: unknown): string | undefined {
  if (!isRecord(body)) return 'HTTP 200 with a body that is not a JSON object';
  const items = body[key];
  if (!Array.isArray(items)) return `HTTP 200 without a "${key}" list`;
  if (typeof body.uri !== 'string') return 'HTTP 200 without a "uri" string';
  if (!(body.next_page_uri === null || typeof body.next_page_uri === 'string')) {
    return 'HTTP 200 with "next_page_uri" neither a string nor null';
  }
  for (const item of items) {
    try {
      const object = kind.fromApi(item);
      if (!object.id.startsWith(kind.idPrefix))
        return `an item's id "${object.id}" lacks the prefix ${kind.idPrefix}`;
    } catch (error) {
      return `an item does not read: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return undefined;
}

async function pagingLine(
  kind: Kind,
  list: { readonly path: string; readonly key: string },
  baseUrl: string,
  get: (target: URL) => Promise<RawAnswer>,
): Promise<DoctorLine> {
  const check = `paging.${kind.name}`;
  const assumption = `GET ${list.path}?limit=1 pages by next_page_uri, on the service's origin, to a page that does not repeat`;
  const first = await get(new URL(`${baseUrl}${list.path}?limit=1`));
  if (first.type !== 'response' || first.status !== 200 || !isRecord(first.json)) {
    return line(check, assumption, 'the first page did not read', 'differs');
  }
  const next = first.json.next_page_uri;
  const items = first.json[list.key];
  if (typeof next !== 'string') {
    const count = Array.isArray(items) ? items.length : 0;
    return line(
      check,
      assumption,
      count === 0 ? 'the list is empty: paging not exercised' : 'one page only: paging not exercised',
      'unknown',
    );
  }
  let nextUrl: URL;
  try {
    nextUrl = new URL(next, baseUrl);
  } catch {
    return line(check, assumption, `next_page_uri is not a URL: ${JSON.stringify(next)}`, 'differs');
  }
  if (nextUrl.origin !== new URL(baseUrl).origin) {
    return line(check, assumption, `next_page_uri points to another origin: ${nextUrl.origin}`, 'differs');
  }
  const second = await get(nextUrl);
  if (second.type !== 'response' || second.status !== 200 || !isRecord(second.json)) {
    return line(check, assumption, 'the next page did not read', 'differs');
  }
  const firstIds = idsOf(items);
  const repeated = idsOf(second.json[list.key]).filter((id) => firstIds.includes(id));
  return repeated.length === 0
    ? line(check, assumption, 'a second page with other items', 'holds')
    : line(check, assumption, `the next page repeats ${repeated.join(', ')}`, 'differs');
}

function idsOf(items: unknown): string[] {
  return (Array.isArray(items) ? items : []).flatMap((item) =>
    isRecord(item) && typeof item.id === 'string' ? [item.id] : [],
  );
}

/**
 * The budget left, read only from headers the service sends of its own
 * accord (RateLimit, RateLimit-Remaining, X-RateLimit-Remaining); no request
 * is spent to find out.
 */
function budgetLine(headers: IncomingHttpHeaders): DoctorLine {
  const assumption =
    'the request budget left (120 per 60 s in the service family), where the service says it';
  const header = (name: string): string | undefined => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const remaining = header('ratelimit-remaining') ?? header('x-ratelimit-remaining');
  const limit = header('ratelimit-limit') ?? header('x-ratelimit-limit');
  const combined = header('ratelimit');
  if (remaining !== undefined) {
    return line(
      'budget',
      assumption,
      `${remaining}${limit === undefined ? '' : ` of ${limit}`} left`,
      'holds',
    );
  }
  if (combined !== undefined) return line('budget', assumption, `RateLimit: ${combined}`, 'holds');
  return line('budget', assumption, 'unknown: the service sends no rate-limit header', 'unknown');
}

/** The service's `msg`, when its error body has one: what a person reads first. */
function messageOf(body: unknown): string {
  return isRecord(body) && typeof body.msg === 'string' ? `: ${body.msg}` : '';
}

/** What the service answered, and what to check, as every command says it (src/api/connection-hint.ts). */
function withHint(answered: string, hint: string | undefined): string {
  return hint === undefined ? answered : `${answered}: ${hint}`;
}
