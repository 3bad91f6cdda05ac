import { isRecord, refIds } from './api-json.js';
import type { FieldRule } from './kind.js';
import { withoutUndefined } from './live-object.js';
import { normalizeSetLike } from './set-like.js';

/**
 * The mutual TLS module of HTTPS and TLS edges. Manifest shape
 * `{ enabled, certificate_authorities: [names or IDs] }`; the API takes
 * `certificate_authority_ids` and answers with Refs.
 */
export const MUTUAL_TLS_FIELDS: readonly FieldRule[] = [
  { name: 'enabled', onChange: 'update' },
  {
    name: 'certificate_authorities',
    onChange: 'update',
    setLike: true,
    references: 'certificate_authorities',
  },
];

/** null (remove) and undefined (leave alone) pass through; an object gets its defaults. */
export function normalizeMutualTlsDesired(value: unknown): unknown {
  if (!isRecord(value)) return value;
  return withoutUndefined({
    enabled: value.enabled ?? true,
    certificate_authorities: normalizeSetLike(value.certificate_authorities ?? []),
  });
}

export function mutualTlsFromApi(raw: unknown): Record<string, unknown> | null {
  if (!isRecord(raw)) return null;
  return {
    enabled: raw.enabled ?? true,
    certificate_authorities: normalizeSetLike(refIds(raw.certificate_authorities)),
  };
}

/** EndpointMutualTLSMutate; IDs are passed through untouched (they may be pending-ID placeholders). */
export function mutualTlsMutateBody(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { enabled: value.enabled ?? true, certificate_authority_ids: value.certificate_authorities ?? [] };
}
