import {
  IP_RESTRICTION_FIELDS,
  ipRestrictionFromApi,
  ipRestrictionMutateBody,
  normalizeIpRestrictionDesired,
} from './ip-restriction-module.js';
import type { Kind } from './kind.js';
import { ID_PREFIXES } from './kind-name.js';
import { moduleEdgeKind } from './module-edges.js';

export const tcpEdges: Kind = moduleEdgeKind({
  name: 'tcp_edges',
  title: 'TCP edge',
  idPrefix: ID_PREFIXES.tcp_edge,
  path: '/edges/tcp',
  modules: [
    {
      rule: { name: 'ip_restriction', scope: 'resource', fields: IP_RESTRICTION_FIELDS },
      fromApi: ipRestrictionFromApi,
      normalizeDesired: normalizeIpRestrictionDesired,
      putBody: ipRestrictionMutateBody,
    },
  ],
});
