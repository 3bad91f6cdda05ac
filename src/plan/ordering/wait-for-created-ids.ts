import type { DraftAction } from '../draft-action.js';
import { pendingKeysIn, pendingKeysInPath } from '../pending-id.js';
import type { Edge } from './dependency-edges.js';

/**
 * Ordering rule 1 of docs/plan.md: a request naming an ID that another
 * action creates (a pending ID in its body or path) waits for that create.
 */
export function waitForCreatedIds(actions: readonly DraftAction[]): Edge[] {
  const edges: Edge[] = [];
  // The set of every key only once a request names a pending ID: 100,000 creates name none.
  let keys: Set<string> | undefined;
  const isPlanned = (key: string): boolean => {
    keys ??= new Set(actions.map((action) => action.key));
    return keys.has(key);
  };
  for (const action of actions) {
    const { request } = action;
    for (const key of pendingKeysIn(request.body)) if (isPlanned(key)) edges.push({ waiter: action, key });
    for (const key of pendingKeysInPath(request.path))
      if (isPlanned(key)) edges.push({ waiter: action, key });
  }
  return edges;
}
