import type { EmulatedCollection } from '../../emulator/emulated-collection.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import type { BaseRecord } from '../../emulator/records.js';
import { ServiceError } from '../../emulator/service-error.js';
import type { StoreCollection } from '../../emulator/store.js';

/** What every edge record holds, whatever its kind. */
export interface EdgeRecord extends BaseRecord {
  hostports: string[];
}

/**
 * The collection of an edge kind says that its records serve hostports, so
 * that the check below finds every edge the emulator stores, of whichever
 * kinds it serves, without a list of them.
 */
export interface EdgeCollection<R extends EdgeRecord> extends EmulatedCollection<R> {
  readonly path: string;
  readonly servesHostports: true;
}

function isEdgeCollection(collection: StoreCollection): collection is EdgeCollection<EdgeRecord> {
  return 'servesHostports' in collection && collection.servesHostports === true;
}

/**
 * A hostport is served by one edge, whatever its kind (the service family
 * routes each hostname:port to one edge): a create or PATCH that claims one
 * another edge serves answers 400 `conflict` naming that edge.
 */
export function checkHostportsFree(env: HandlerEnv, hostports: readonly string[], exceptId?: string): void {
  if (hostports.length === 0) return;
  const wanted = new Set(hostports.map((hostport) => hostport.toLowerCase()));
  for (const collection of env.store.collections.filter(isEdgeCollection)) {
    for (const edge of env.store.list(collection)) {
      if (edge.id === exceptId) continue;
      const clash = edge.hostports.find((hostport) => wanted.has(hostport.toLowerCase()));
      if (clash !== undefined)
        throw new ServiceError(
          400,
          'conflict',
          `hostports: ${clash} is already served by edge ${edge.id}`,
          'hostports',
          // The family's "hostport already in use" (its Kubernetes operator branches on it).
          7132,
        );
    }
  }
}
