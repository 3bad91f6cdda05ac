import type { EmulatedCollection } from '../../emulator/emulated-collection.js';
import { descriptionRule, metadataRule, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import type { BaseRecord } from '../../emulator/records.js';
import type { StoreCollection } from '../../emulator/store.js';
import {
  EDGE_DESCRIPTION_TOO_LONG,
  EDGE_ID_MALFORMED,
  EDGE_METADATA_TOO_LONG,
  EDGE_NOT_FOUND,
  HOSTPORT_IN_USE,
} from './emulator-errors.js';

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

/** What a request may get wrong about an edge of any kind: its ID's shape, an ID the account does not hold. */
export const EDGE_REFUSALS = { malformedId: EDGE_ID_MALFORMED, notFound: EDGE_NOT_FOUND } as const;

export const EDGE_DESCRIPTION = descriptionRule(EDGE_DESCRIPTION_TOO_LONG);
export const EDGE_METADATA = metadataRule(EDGE_METADATA_TOO_LONG);

/**
 * The top-level fields of an edge: description, metadata, hostports, and its
 * modules, each checked by its own module check afterwards (null unsets it).
 */
export function edgeRules(modules: readonly string[]): ObjectRules {
  const rules: Record<string, ObjectRules[string]> = {
    description: EDGE_DESCRIPTION,
    metadata: EDGE_METADATA,
    hostports: { type: 'string-list', format: 'hostport' },
  };
  for (const module of modules) rules[module] = { type: 'any', nullable: true };
  return rules;
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
        throw HOSTPORT_IN_USE.refuseField('hostports', `${clash} is already served by edge ${edge.id}`);
    }
  }
}
