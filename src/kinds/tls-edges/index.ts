import { moduleEdgeKind } from '../edge-modules/module-edges.js';
import { MUTUAL_TLS_EDGE_MODULE } from '../edge-modules/mutual-tls-module.js';
import { TLS_TERMINATION_EDGE_MODULE } from '../edge-modules/tls-termination-module.js';
import type { Kind } from '../kind.js';
import { TLS_EDGES_SCHEMA } from './schema.js';
import { checkMutualTlsWithUpstream, checkUpstreamWithLive } from './upstream-termination.js';

/** The ID prefix of a certificate authority, which the probe's mutual TLS names. */
const CA_PREFIX = 'ca_';

export const tlsEdges: Kind = moduleEdgeKind({
  name: 'tls_edges',
  title: 'TLS edge',
  idPrefix: 'edgtls_',
  exportIdFlag: '--tls-edge',
  schema: TLS_EDGES_SCHEMA,
  path: '/edges/tls',
  modules: [MUTUAL_TLS_EDGE_MODULE, TLS_TERMINATION_EDGE_MODULE],
  checkModules: checkMutualTlsWithUpstream,
  checkWithLive: checkUpstreamWithLive,
  probe: {
    // The probe's CA was made from a key thrown away: mutual TLS with it lets no client in.
    moduleValues: (ids) => ({
      tls_termination: { enabled: true, terminate_at: 'edge', min_version: '1.2' },
      ...(ids.has(CA_PREFIX)
        ? { mutual_tls: { enabled: true, certificate_authorities: [ids.get(CA_PREFIX)] } }
        : {}),
    }),
  },
  emulator: async () => (await import('./emulator.js')).TLS_EDGES_PART,
});
