import { IP_RESTRICTION_EDGE_MODULE } from '../edge-modules/ip-restriction-module.js';
import { moduleEdgeKind } from '../edge-modules/module-edges.js';
import type { Kind } from '../kind.js';
import { IP_POLICY_IDS } from '../referenced-resources/index.js';
import { TCP_EDGES_SCHEMA } from './schema.js';

export const tcpEdges: Kind = moduleEdgeKind({
  name: 'tcp_edges',
  title: 'TCP edge',
  idPrefix: 'edgtcp_',
  exportIdFlag: '--tcp-edge',
  namedIds: [IP_POLICY_IDS],
  schema: TCP_EDGES_SCHEMA,
  path: '/edges/tcp',
  modules: [IP_RESTRICTION_EDGE_MODULE],
  probe: {
    moduleValues: (ids) =>
      ids.has(IP_POLICY_IDS.prefix)
        ? { ip_restriction: { enabled: true, ip_policies: [ids.get(IP_POLICY_IDS.prefix)] } }
        : {},
  },
  emulator: async () => (await import('./emulator.js')).TCP_EDGES_PART,
});
