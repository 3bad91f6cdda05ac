import type { Kind } from './kind.js';
import { ID_PREFIXES } from './kind-name.js';
import { moduleEdgeKind } from './module-edges.js';
import { MUTUAL_TLS_EDGE_MODULE } from './mutual-tls-module.js';
import { TLS_EDGES_SCHEMA } from './tls-edges.schema.js';
import { TLS_TERMINATION_EDGE_MODULE } from './tls-termination-module.js';

export const tlsEdges: Kind = moduleEdgeKind({
  name: 'tls_edges',
  title: 'TLS edge',
  idPrefix: ID_PREFIXES.tls_edge,
  schema: TLS_EDGES_SCHEMA,
  path: '/edges/tls',
  modules: [MUTUAL_TLS_EDGE_MODULE, TLS_TERMINATION_EDGE_MODULE],
});
