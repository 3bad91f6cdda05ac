import type { IncomingHttpHeaders } from 'node:http';
import { parseRetryAfter } from '../api/retry-policy.js';
import { FAILURE_WORDS } from '../peer/peer-failure.js';
import { readPeer } from '../peer/read-peer.js';
import { VERSION } from '../version.js';
import { visibleText } from '../visible-text.js';
import type { CommitStatusProvider, FoundStatus, HostRequest } from './commit-status-providers.js';
import type { CommitStatus } from './commit-status-text.js';

/**
 * The most one answer of a Git host may weigh, decoded: a page of 100
 * statuses is about 100 KB; GitHub's compare lists up to 300 changed files
 * with their patches beside the answer's one field edgesync reads.
 */
export const MAX_HOST_BODY_BYTES = 16 * 1024 * 1024;
/** Pages of a commit's statuses read to find one context: 1,000 statuses. */
const MAX_STATUS_PAGES = 10;
/** What is kept of a host's own message in an error. */
const MAX_HOST_MESSAGE_CHARS = 200;

export interface GitHostClientOptions {
  readonly provider: CommitStatusProvider;
  /** `https://api.github.com`, `https://gitlab.example.com/api/v4`: the paths are appended to its path. */
  readonly apiUrl: URL;
  /** As the provider names it: `acme/infra`, `group/subgroup/infra` or a GitLab project ID. */
  readonly repo: string;
  /** Read before every request: a mounted Secret or an app token rotates. A rejection is reported as `refused`. */
  readonly token: () => Promise<string>;
  /** One request's whole deadline, milliseconds: connecting, the headers and the body. */
  readonly timeoutMs: number;
  /** Wall-clock milliseconds, for the rate limit's reset time. @default Date.now */
  readonly now?: () => number;
}

/**
 * How one call to the host ended:
 * - `ok`: its value;
 * - `retry`: the host is unreachable, failing (5xx) or rate-limiting: ask again later;
 * - `refused`: the host refused it for good (a token it rejects, a repository it does not know): a person must act;
 * - `aborted`: the caller's signal.
 * `waitMs` is how long the host asked to be left alone (`Retry-After`, a spent rate limit's reset); 0 when it did not.
 */
export type HostOutcome<T> =
  | { readonly type: 'ok'; readonly value: T; readonly waitMs: number }
  | { readonly type: 'retry'; readonly message: string; readonly waitMs: number }
  | { readonly type: 'refused'; readonly status: number | null; readonly message: string }
  | { readonly type: 'aborted' };

type Exchange =
  | { readonly type: 'answer'; readonly status: number; readonly body: unknown; readonly waitMs: number }
  | Exclude<HostOutcome<never>, { type: 'ok' }>;

/**
 * A Git host's commit-status API for one repository: post a status, read
 * the newest status of a context on a commit, ask whether one commit
 * contains another. Every request goes through `readPeer` (a total
 * deadline, a size bound, the caller's signal), carries the token only in
 * the provider's header, and never puts the token in a message: what the
 * host says back is cut, made visible and scrubbed of it.
 */
export class GitHostClient {
  readonly #options: GitHostClientOptions;
  readonly #now: () => number;

  constructor(options: GitHostClientOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get provider(): CommitStatusProvider {
    return this.#options.provider;
  }

  /** Sets `status` as the commit's state for `context`; a state the commit already has counts as set. */
  async postStatus(
    commit: string,
    context: string,
    status: CommitStatus,
    targetUrl: string | null,
    signal?: AbortSignal,
  ): Promise<HostOutcome<true>> {
    const { provider, repo } = this.#options;
    const request = provider.postStatus(repo, commit, context, status, targetUrl);
    const exchange = await this.#exchange(request, signal);
    if (exchange.type !== 'answer') return exchange;
    if (isSuccess(exchange.status) || provider.postAlreadyDone(exchange.status, exchange.body)) {
      return { type: 'ok', value: true, waitMs: exchange.waitMs };
    }
    return this.#failure(request, exchange);
  }

  /** The newest status of `context` on `commit`, or null when the commit has none. */
  async readStatus(
    commit: string,
    context: string,
    signal?: AbortSignal,
  ): Promise<HostOutcome<FoundStatus | null>> {
    const { provider, repo } = this.#options;
    let waitMs = 0;
    for (let page = 1; page <= MAX_STATUS_PAGES; page += 1) {
      const request = provider.readStatuses(repo, commit, page);
      const exchange = await this.#exchange(request, signal);
      if (exchange.type !== 'answer') return exchange;
      waitMs = Math.max(waitMs, exchange.waitMs);
      // A commit the host does not hold yet (a push not seen yet) has no status.
      if (exchange.status === 404 || exchange.status === 422) return { type: 'ok', value: null, waitMs };
      if (!isSuccess(exchange.status)) return this.#failure(request, exchange);
      const found = provider.parseStatuses(exchange.body, context, page);
      if (found.found !== null || !found.more) return { type: 'ok', value: found.found, waitMs };
    }
    return { type: 'ok', value: null, waitMs };
  }

  /** Whether `newer` is `older` or has it in its history, by the host's own graph; null when the host does not tell. */
  async contains(older: string, newer: string, signal?: AbortSignal): Promise<HostOutcome<boolean | null>> {
    const { provider, repo } = this.#options;
    const request = provider.ancestry(repo, older, newer);
    const exchange = await this.#exchange(request, signal);
    if (exchange.type !== 'answer') return exchange;
    // Unrelated commits, or one the host does not hold: it cannot say that one contains the other.
    if (exchange.status === 404) return { type: 'ok', value: null, waitMs: exchange.waitMs };
    if (!isSuccess(exchange.status)) return this.#failure(request, exchange);
    return {
      type: 'ok',
      value: provider.parseAncestry(exchange.body, older, newer),
      waitMs: exchange.waitMs,
    };
  }

  async #exchange(request: HostRequest, signal: AbortSignal | undefined): Promise<Exchange> {
    const { provider, apiUrl, timeoutMs } = this.#options;
    let token: string;
    try {
      token = await this.#options.token();
    } catch (error) {
      return {
        type: 'refused',
        status: null,
        message: error instanceof Error ? error.message : String(error),
      };
    }
    const url = new URL(`${apiUrl.href.replace(/\/+$/, '')}${request.path}`);
    const answer = await readPeer(
      {
        method: request.method,
        url,
        headers: {
          ...provider.authHeaders(token),
          'user-agent': `edgesync/${VERSION}`,
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        deadlineMs: timeoutMs,
        maxBodyBytes: MAX_HOST_BODY_BYTES,
        decode: true,
      },
      signal,
    );
    const where = `${provider.title} (${url.host})`;
    if (answer.type === 'aborted') return { type: 'aborted' };
    if (answer.type === 'failed') {
      return {
        type: 'retry',
        message: `${where}: ${request.method} ${pathOnly(request)}: ${FAILURE_WORDS[answer.failure]} (${scrub(answer.detail, token)})`,
        waitMs: 0,
      };
    }
    const waitMs = this.#waitMs(answer.status, answer.headers);
    if (answer.type === 'too_large') {
      return {
        type: 'retry',
        message: `${where}: ${request.method} ${pathOnly(request)}: the answer is over ${MAX_HOST_BODY_BYTES / 1024 / 1024} MiB; not read`,
        waitMs,
      };
    }
    let body: unknown = null;
    try {
      body = answer.text === '' ? null : JSON.parse(answer.text);
    } catch {
      body = { message: answer.text };
    }
    return { type: 'answer', status: answer.status, body: scrubBody(body, token), waitMs };
  }

  #failure(request: HostRequest, exchange: Extract<Exchange, { type: 'answer' }>): HostOutcome<never> {
    const { provider, apiUrl } = this.#options;
    const said = hostMessage(exchange.body);
    const message = `${provider.title} (${apiUrl.host}) answered ${exchange.status} to ${request.method} ${pathOnly(request)}${said === '' ? '' : `: ${said}`}`;
    const limited =
      exchange.status === 429 ||
      (exchange.status === 403 && (exchange.waitMs > 0 || /rate limit/i.test(said)));
    if (limited || exchange.status >= 500) return { type: 'retry', message, waitMs: exchange.waitMs };
    return { type: 'refused', status: exchange.status, message: `${message}${hint(exchange.status)}` };
  }

  /** How long the host asks to be left alone: `Retry-After`, or a spent rate limit until its reset (GitHub's and Gitea's `x-ratelimit-*`, GitLab's `ratelimit-*`). */
  #waitMs(status: number, headers: IncomingHttpHeaders): number {
    const now = this.#now();
    const retryAfter = parseRetryAfter(header(headers, 'retry-after'), now);
    if (retryAfter !== undefined && (status === 429 || status === 403 || status >= 500)) return retryAfter;
    for (const prefix of ['x-ratelimit', 'ratelimit']) {
      const remaining = header(headers, `${prefix}-remaining`);
      const reset = Number(header(headers, `${prefix}-reset`));
      if (remaining !== undefined && Number(remaining) <= 0 && Number.isFinite(reset) && reset > 0) {
        return Math.max(0, reset * 1000 - now);
      }
    }
    return retryAfter ?? 0;
  }
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The path without its query: what a message names. */
function pathOnly(request: HostRequest): string {
  return request.path.replace(/\?.*$/, '');
}

/** What to change, for the refusals a person meets first. */
function hint(status: number): string {
  if (status === 401) return ' (check the token in --commit-status-token-file)';
  if (status === 403)
    return ' (the token lacks the permission: statuses: write to post, statuses: read to wait)';
  if (status === 404)
    return ' (check --commit-status-repo and --commit-status-api-url, and that the token can see the repository)';
  return '';
}

/** The host's own `message` (all three use the key), cut and made visible. */
function hostMessage(body: unknown): string {
  const message =
    typeof body === 'object' && body !== null && 'message' in body
      ? (body as { message: unknown }).message
      : '';
  const text = typeof message === 'string' ? message : JSON.stringify(message ?? '');
  const visible = visibleText(text.replace(/\s+/g, ' ').trim());
  return visible.length > MAX_HOST_MESSAGE_CHARS
    ? `${visible.slice(0, MAX_HOST_MESSAGE_CHARS - 1)}…`
    : visible;
}

function scrub(text: string, token: string): string {
  return token === '' ? text : text.split(token).join('(token)');
}

/** A host that echoes the token back (in an error about it) must not carry it into a message: every string is scrubbed. */
function scrubBody(body: unknown, token: string): unknown {
  if (token === '') return body;
  if (typeof body === 'string') return scrub(body, token);
  if (Array.isArray(body)) return body.map((item) => scrubBody(item, token));
  if (typeof body === 'object' && body !== null) {
    return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, scrubBody(value, token)]));
  }
  return body;
}
