import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RawBody } from './http-io.js';
import { ServiceError } from './service-error.js';

/**
 * The checks every API request passes before a handler runs, in the order
 * the service family answers them: the key, the version, then the shape of
 * the request itself (headers, body, query).
 */
const SERVICE_VERSION = '2';

export function keyMatches(header: string | undefined, apiKey: string): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1] as string);
  const expected = Buffer.from(apiKey);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function checkAuthorization(headers: IncomingHttpHeaders, apiKey: string): void {
  if (!keyMatches(headers.authorization, apiKey)) {
    throw new ServiceError(401, 'unauthorized', 'missing or invalid Bearer API key');
  }
}

export function checkServiceVersion(headers: IncomingHttpHeaders): void {
  const version = headers['service-version'];
  if (version === undefined) {
    throw new ServiceError(400, 'missing_service_version', 'the Service-Version header is required (use 2)');
  }
  if (version !== SERVICE_VERSION) {
    throw new ServiceError(
      400,
      'unsupported_service_version',
      `Service-Version "${version}" is not supported (use 2)`,
    );
  }
}

const BODYLESS_METHODS: readonly string[] = ['GET', 'DELETE'];

/**
 * A body is JSON, announced as such (spec: Authentication 2), and only
 * where the operation takes one: GET and DELETE take none.
 */
export function checkBody(method: string, headers: IncomingHttpHeaders, raw: RawBody): void {
  const hasBody = raw.tooLarge || raw.bytes.length > 0;
  if (!hasBody) return;
  if (BODYLESS_METHODS.includes(method)) {
    throw new ServiceError(400, 'invalid_body', `${method} takes no request body`);
  }
  const mediaType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new ServiceError(
      400,
      'invalid_content_type',
      `a request body needs Content-Type: application/json (found ${
        headers['content-type'] === undefined ? 'none' : `"${headers['content-type']}"`
      })`,
    );
  }
}

/** Query parameters that remember which of them a handler read, so unread ones can be refused. */
export class TrackedQuery extends URLSearchParams {
  private readonly read = new Set<string>();

  override get(name: string): string | null {
    this.read.add(name);
    return super.get(name);
  }

  /** Names present in the query that nothing read. */
  unread(): string[] {
    return [...new Set(this.keys())].filter((name) => !this.read.has(name));
  }
}

/**
 * No endpoint takes a parameter twice, and only list reads take any: a
 * write with a query, or a repeated parameter, is refused before anything
 * runs. Which parameters a GET takes is known once its handler ran (see
 * `checkQueryConsumed`); GET handlers change nothing, so checking after is safe.
 */
export function checkQueryShape(method: string, query: URLSearchParams): void {
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (seen.has(name))
      throw new ServiceError(400, 'invalid_query', `query parameter ${name} is repeated`, name);
    seen.add(name);
  }
  const first = seen.values().next();
  if (method !== 'GET' && !first.done) {
    throw new ServiceError(
      400,
      'invalid_query',
      `${method} takes no query parameters (found ${first.value})`,
      first.value,
    );
  }
}

export function checkQueryConsumed(query: TrackedQuery): void {
  const [unknown] = query.unread();
  if (unknown !== undefined) {
    throw new ServiceError(400, 'invalid_query', `unknown query parameter ${unknown}`, unknown);
  }
}
