import type { Kind } from './kind.js';
import { ID_PREFIXES } from './kind-name.js';
import { moduleEdgeKind } from './module-edges.js';
import {
  MUTUAL_TLS_FIELDS,
  mutualTlsFromApi,
  mutualTlsMutateBody,
  normalizeMutualTlsDesired,
} from './mutual-tls-module.js';
import { TLS_EDGES_SCHEMA } from './tls-edges.schema.js';
import {
  checkTlsTermination,
  normalizeTlsTermination,
  TLS_TERMINATION_FIELDS,
  tlsTerminationFromApi,
  tlsTerminationMutateBody,
} from './tls-termination-module.js';

export const tlsEdges: Kind = moduleEdgeKind({
  name: 'tls_edges',
  title: 'TLS edge',
  idPrefix: ID_PREFIXES.tls_edge,
  schema: TLS_EDGES_SCHEMA,
  path: '/edges/tls',
  modules: [
    {
      rule: { name: 'mutual_tls', scope: 'resource', fields: MUTUAL_TLS_FIELDS },
      fromApi: mutualTlsFromApi,
      normalizeDesired: normalizeMutualTlsDesired,
      putBody: mutualTlsMutateBody,
    },
    {
      rule: { name: 'tls_termination', scope: 'resource', fields: TLS_TERMINATION_FIELDS['tls-edge'] },
      fromApi: (raw) => tlsTerminationFromApi(raw, 'tls-edge'),
      normalizeDesired: (value) => normalizeTlsTermination(value, 'tls-edge'),
      putBody: (value) => tlsTerminationMutateBody(value, 'tls-edge'),
      check: checkTlsTermination,
    },
  ],
});
