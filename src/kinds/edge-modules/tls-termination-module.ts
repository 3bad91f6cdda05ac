import { isRecord } from '../../json-value.js';
import type { EntryProblem, FieldRule } from '../kind.js';
import type { EdgeModule } from './module-edges.js';

/**
 * The TLS termination module. On a TLS edge it is
 * `{ enabled, terminate_at, min_version }`; on an HTTPS edge the mutate shape
 * (EndpointTLSTerminationAtEdge) has no `terminate_at`, so that variant drops
 * it on both sides. An unset `min_version` is null on both sides.
 */
export type TlsTerminationVariant = 'https-edge' | 'tls-edge';

export const TLS_TERMINATION_FIELDS: Readonly<Record<TlsTerminationVariant, readonly FieldRule[]>> = {
  'https-edge': [
    { name: 'enabled', onChange: 'update' },
    { name: 'min_version', onChange: 'update' },
  ],
  'tls-edge': [
    { name: 'enabled', onChange: 'update' },
    { name: 'terminate_at', onChange: 'update' },
    { name: 'min_version', onChange: 'update' },
  ],
};

/** A TLS edge that passes TLS through to the upstream has no minimum version of its own. */
export function checkTlsTermination(value: unknown, pointer: string): EntryProblem[] {
  if (!isRecord(value) || value.terminate_at !== 'upstream' || value.min_version == null) return [];
  return [
    {
      code: 'min_version_with_upstream',
      pointer: `${pointer}/min_version`,
      message: `must be null when terminate_at is "upstream" (found ${JSON.stringify(value.min_version)})`,
    },
  ];
}

/** The service's default when a TLS edge's module omits `terminate_at`. */
export const DEFAULT_TERMINATE_AT = 'edge';

/** null (remove) and undefined (leave alone) pass through; an object gets its defaults. */
export function normalizeTlsTermination(value: unknown, variant: TlsTerminationVariant): unknown {
  if (!isRecord(value)) return value;
  const enabled = value.enabled ?? true;
  const minVersion = value.min_version ?? null;
  if (variant === 'https-edge') return { enabled, min_version: minVersion };
  return { enabled, terminate_at: value.terminate_at ?? DEFAULT_TERMINATE_AT, min_version: minVersion };
}

export function tlsTerminationFromApi(
  raw: unknown,
  variant: TlsTerminationVariant,
): Record<string, unknown> | null {
  if (!isRecord(raw)) return null;
  return normalizeTlsTermination(raw, variant) as Record<string, unknown>;
}

export function tlsTerminationMutateBody(
  value: Readonly<Record<string, unknown>>,
  variant: TlsTerminationVariant,
): Record<string, unknown> {
  return normalizeTlsTermination(value, variant) as Record<string, unknown>;
}

/** The module as a TLS edge manages it (an HTTPS edge reads it with the edge itself). */
export const TLS_TERMINATION_EDGE_MODULE: EdgeModule = {
  rule: { name: 'tls_termination', scope: 'resource', fields: TLS_TERMINATION_FIELDS['tls-edge'] },
  fromApi: (raw) => tlsTerminationFromApi(raw, 'tls-edge'),
  normalizeDesired: (value) => normalizeTlsTermination(value, 'tls-edge'),
  putBody: (value) => tlsTerminationMutateBody(value, 'tls-edge'),
  check: checkTlsTermination,
};
