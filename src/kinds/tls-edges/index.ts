import { moduleEdgeKind } from '../edge-modules/module-edges.js';
import { MUTUAL_TLS_EDGE_MODULE } from '../edge-modules/mutual-tls-module.js';
import { TLS_TERMINATION_EDGE_MODULE } from '../edge-modules/tls-termination-module.js';
import type { Kind } from '../kind.js';
import { TLS_EDGES_SCHEMA } from './schema.js';

export const tlsEdges: Kind = moduleEdgeKind({
  name: 'tls_edges',
  title: 'TLS edge',
  idPrefix: 'edgtls_',
  schema: TLS_EDGES_SCHEMA,
  path: '/edges/tls',
  modules: [MUTUAL_TLS_EDGE_MODULE, TLS_TERMINATION_EDGE_MODULE],
  emulator: async () => (await import('./emulator.js')).TLS_EDGES_PART,
});
