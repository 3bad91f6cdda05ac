import { isRecord } from './api-json.js';
import type { FieldRule } from './kind.js';
import { withoutUndefined } from './live-object.js';
import { normalizeSetLike } from './set-like.js';

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
