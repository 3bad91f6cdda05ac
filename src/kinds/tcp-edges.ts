import { IP_RESTRICTION_EDGE_MODULE } from './ip-restriction-module.js';
import type { Kind } from './kind.js';
import { ID_PREFIXES } from './kind-name.js';
import { moduleEdgeKind } from './module-edges.js';
import { TCP_EDGES_SCHEMA } from './tcp-edges.schema.js';

export const tcpEdges: Kind = moduleEdgeKind({
  name: 'tcp_edges',
  title: 'TCP edge',
  idPrefix: ID_PREFIXES.tcp_edge,
  schema: TCP_EDGES_SCHEMA,
  path: '/edges/tcp',
  modules: [IP_RESTRICTION_EDGE_MODULE],
});
