import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  BODY_NOT_TAKEN,
  KEY_ID_AS_CREDENTIAL,
  MALFORMED_CREDENTIAL,
  MISSING_AUTHORIZATION,
  MISSING_CONTENT_TYPE,
  MISSING_VERSION,
  REPEATED_QUERY_PARAMETER,
  UNKNOWN_CREDENTIAL,
  UNKNOWN_QUERY_PARAMETER,
  UNPARSABLE_AUTHORIZATION,
  UNPARSABLE_QUERY,
  UNSUPPORTED_CONTENT_TYPE,
  UNSUPPORTED_VERSION,
} from './api-errors.js';
import type { RawBody } from './http-io.js';

/**
 * The checks every API request passes before a handler runs, in the order
 * the service family answers them: the key, the version, then the shape of
 * the request itself (headers, body, query).
 */
const SERVICE_VERSION = '2';

/** A bearer token as RFC 6750 writes it (b64token): what an API key looks like. */
export const CREDENTIAL_SHAPE = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The family's API key IDs (`ak_…`): a caller that sends one meant to send the key's secret. */
const KEY_ID = /^ak_[A-Za-z0-9]+$/;

function sameKey(given: string, apiKey: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(apiKey);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The family's four answers to a key, in the order it tells them apart:
 * no header (200), a header that is no Bearer or Basic credential (201), a
 * credential of no key's shape (202), a well-formed one that is not the
 * key (203), and its own word for an API key's ID sent as the key (208).
 * No message quotes the header: it may hold a secret.
 */
export function checkAuthorization(headers: IncomingHttpHeaders, apiKey: string): void {
  const header = headers.authorization;
  if (header === undefined) {
    throw MISSING_AUTHORIZATION.refuse(
      'the Authorization header is missing; send Authorization: Bearer API_KEY',
    );
  }
  const scheme = /^(Bearer|Basic) +(.*)$/i.exec(header);
  if (scheme === null) {
    throw UNPARSABLE_AUTHORIZATION.refuse(
      'the Authorization header is not a Bearer credential; send Authorization: Bearer API_KEY',
    );
  }
  const credential = (scheme[2] as string).trim();
  if (scheme[1]?.toLowerCase() === 'bearer' && sameKey(credential, apiKey)) return;
  if (!CREDENTIAL_SHAPE.test(credential)) {
    throw MALFORMED_CREDENTIAL.refuse(
      'the credential in the Authorization header is not shaped like an API key',
    );
  }
  if (KEY_ID.test(credential)) {
    throw KEY_ID_AS_CREDENTIAL.refuse(
      "the credential is an API key's ID (ak_…); send the key's secret token instead",
    );
  }
  throw UNKNOWN_CREDENTIAL.refuse('the API key is not valid (unknown or revoked)');
}

export function checkServiceVersion(headers: IncomingHttpHeaders): void {
  const version = headers['service-version'];
  if (version === undefined) {
    throw MISSING_VERSION.refuse('the Service-Version header is required; supported versions: 2');
  }
  if (version !== SERVICE_VERSION) {
    throw UNSUPPORTED_VERSION.refuse(`Service-Version "${version}" is not supported; supported versions: 2`);
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
    throw BODY_NOT_TAKEN.refuse(`${method} takes no request body`);
  }
  const contentType = headers['content-type'];
  if (contentType === undefined) {
    throw MISSING_CONTENT_TYPE.refuse('a request body needs Content-Type: application/json (found none)');
  }
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw UNSUPPORTED_CONTENT_TYPE.refuse(
      `a request body needs Content-Type: application/json (found "${contentType}")`,
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

/** `%` not followed by two hex digits: URLSearchParams keeps it as text, the family cannot parse it. */
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * The query string parses, no endpoint takes a parameter twice, and only
 * list reads take any: a write with a query, or a repeated parameter, is
 * refused before anything runs. Which parameters a GET takes is known once
 * its handler ran (see `checkQueryConsumed`); GET handlers change nothing,
 * so checking after is safe.
 */
export function checkQueryShape(method: string, search: string, query: URLSearchParams): void {
  if (BAD_ESCAPE.test(search)) {
    throw UNPARSABLE_QUERY.refuse('the query string cannot be parsed: a % is not followed by two hex digits');
  }
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (seen.has(name)) {
      const values = query.getAll(name);
      throw REPEATED_QUERY_PARAMETER.refuse(
        `query parameter ${name} takes one value (found ${values.length}: ${values.join(', ')})`,
        name,
      );
    }
    seen.add(name);
  }
  const first = seen.values().next();
  if (method !== 'GET' && !first.done) {
    throw UNKNOWN_QUERY_PARAMETER.refuse(
      `${method} takes no query parameters (found ${first.value})`,
      first.value,
    );
  }
}

export function checkQueryConsumed(query: TrackedQuery): void {
  const [unknown] = query.unread();
  if (unknown === undefined) return;
  throw UNKNOWN_QUERY_PARAMETER.refuse(
    `unknown query parameter ${unknown} (a list takes limit and before_id; no other request takes any)`,
    unknown,
  );
}
