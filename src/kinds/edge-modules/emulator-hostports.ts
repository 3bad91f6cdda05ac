import type { HandlerEnv } from '../../emulator/handler.js';
import { ServiceError } from '../../emulator/service-error.js';

const EDGE_COLLECTIONS = ['https_edges', 'tcp_edges', 'tls_edges'] as const;

/**
 * A hostport is served by one edge, whatever its kind (the service family
 * routes each hostname:port to one edge): a create or PATCH that claims one
 * another edge serves answers 400 `conflict` naming that edge.
 */
export function checkHostportsFree(env: HandlerEnv, hostports: readonly string[], exceptId?: string): void {
  if (hostports.length === 0) return;
  const wanted = new Set(hostports.map((hostport) => hostport.toLowerCase()));
  for (const collection of EDGE_COLLECTIONS) {
    for (const edge of env.store.list(collection)) {
      if (edge.id === exceptId) continue;
      const clash = edge.hostports.find((hostport) => wanted.has(hostport.toLowerCase()));
      if (clash !== undefined)
        throw new ServiceError(
          400,
          'conflict',
          `hostports: ${clash} is already served by edge ${edge.id}`,
          'hostports',
        );
    }
  }
}
