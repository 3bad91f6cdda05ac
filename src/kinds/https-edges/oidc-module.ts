import { isRecord } from '../../json-value.js';
import type { FieldRule } from '../kind.js';
import { withoutUndefined } from '../live-object.js';
import { normalizeSetLike } from '../set-like.js';

/**
 * The OIDC module of an HTTPS edge route (EndpointOIDC). The service answers
 * with every field, unset ones as 0, "" or false; desired entries get the
 * same defaults so the two compare equal.
 */
export const OIDC_FIELDS: readonly FieldRule[] = [
  { name: 'enabled', onChange: 'update' },
  { name: 'options_passthrough', onChange: 'update' },
  { name: 'cookie_prefix', onChange: 'update' },
  { name: 'inactivity_timeout', onChange: 'update' },
  { name: 'maximum_duration', onChange: 'update' },
  { name: 'issuer', onChange: 'update' },
  { name: 'client_id', onChange: 'update' },
  { name: 'client_secret', onChange: 'update', sensitive: true },
  { name: 'scopes', onChange: 'update', setLike: true },
];

/** The service's bound on `inactivity_timeout` and `maximum_duration`, in seconds. */
export const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

/** The service's bound on `issuer`, in bytes of UTF-8. */
export const MAX_ISSUER_BYTES = 255;

const LOCAL_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What is wrong with an OIDC `issuer`, or undefined: an https URL (http only for localhost). */
export function issuerProblem(issuer: string): string | undefined {
  const bytes = Buffer.byteLength(issuer, 'utf8');
  if (bytes > MAX_ISSUER_BYTES) return `is ${bytes} bytes of UTF-8; at most ${MAX_ISSUER_BYTES}`;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return `expected the URL of the OpenID provider, e.g. https://accounts.example.com (found ${JSON.stringify(issuer)})`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname)) return undefined;
  return `expected an https URL (http only for localhost) (found ${JSON.stringify(issuer)})`;
}

/** Same normalization for both sides: the API shape and the manifest shape are one. */
export function normalizeOidc(value: unknown): unknown {
  if (!isRecord(value)) return value;
  return withoutUndefined({
    enabled: value.enabled ?? true,
    options_passthrough: value.options_passthrough ?? false,
    cookie_prefix: value.cookie_prefix ?? '',
    inactivity_timeout: value.inactivity_timeout ?? 0,
    maximum_duration: value.maximum_duration ?? 0,
    issuer: value.issuer,
    client_id: value.client_id,
    client_secret: value.client_secret,
    scopes: normalizeSetLike(value.scopes ?? []),
  });
}

export function oidcFromApi(raw: unknown): Record<string, unknown> | null {
  if (!isRecord(raw)) return null;
  return normalizeOidc(raw) as Record<string, unknown>;
}

/** PUT replaces the whole module: every field is sent. */
export function oidcPutBody(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return normalizeOidc(value) as Record<string, unknown>;
}
