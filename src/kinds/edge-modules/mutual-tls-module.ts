import { isRecord } from '../../json-value.js';
import { refIds } from '../api-json.js';
import type { FieldRule, ModuleRule } from '../kind.js';
import type { JsonSchema } from '../kind-schema.js';
import { withoutUndefined } from '../live-object.js';
import { normalizeSetLike } from '../set-like.js';
import type { EdgeModule } from './module-edges.js';

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

/**
 * The module's rule, the same on HTTPS and TLS edges: a guard whose write
 * swaps the CAs it accepts at once (see GuardRole).
 */
export const MUTUAL_TLS_RULE: ModuleRule = {
  name: 'mutual_tls',
  scope: 'resource',
  fields: MUTUAL_TLS_FIELDS,
  guard: { swapsAtOnce: true },
};

/** The module's manifest schema, the same on HTTPS and TLS edges. */
export const MUTUAL_TLS_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  description:
    'Mutual TLS module: clients must present a certificate signed by one of the CAs. null removes the module.',
  additionalProperties: false,
  properties: {
    enabled: {
      type: 'boolean',
      default: true,
      description: 'Whether the module applies to traffic; default true.',
    },
    certificate_authorities: {
      type: 'array',
      description:
        'Certificate authorities that validate client certificates: names of certificate_authorities entries, or IDs (ca_…) of existing CAs. Required, and not empty, unless enabled is false.',
      uniqueItems: true,
      items: {
        type: 'string',
        minLength: 1,
        description: 'A certificate_authorities entry name, or a CA ID (ca_…).',
      },
    },
  },
  // A disabled module needs no CA: the family's clients leave the empty list out.
  // Each `required` names its property under `properties` too, as Ajv's strictRequired asks.
  if: {
    required: ['enabled'],
    properties: { enabled: { const: false, description: 'A disabled module may name no CA.' } },
  },
  else: {
    required: ['certificate_authorities'],
    properties: {
      certificate_authorities: {
        type: 'array',
        minItems: 1,
        description: 'An enabled module names at least one CA.',
      },
    },
  },
};

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

/** The module as a TLS edge manages it (an HTTPS edge reads it with the edge itself). */
export const MUTUAL_TLS_EDGE_MODULE: EdgeModule = {
  rule: MUTUAL_TLS_RULE,
  fromApi: mutualTlsFromApi,
  normalizeDesired: normalizeMutualTlsDesired,
  putBody: mutualTlsMutateBody,
};
