import type { DraftAction } from '../draft-action.js';
import { EntryCreate } from '../entry-create.js';
import { pendingKeysIn, pendingKeysInPath } from '../pending-id.js';
import type { PlanInputs } from '../plan-inputs.js';
import type { Edge } from './dependency-edges.js';

/**
 * Ordering rule 1 of docs/plan.md: a request naming an ID that another
 * action creates (a pending ID in its body or path) waits for that create.
 */
export function waitForCreatedIds(actions: readonly DraftAction[], inputs: PlanInputs): Edge[] {
  const edges: Edge[] = [];
  const namesOtherKinds = (action: EntryCreate): boolean => {
    const kind = inputs.kindsByName.get(action.kind);
    return kind === undefined || inputs.rules.get(kind)?.hasReferenceFields !== false;
  };
  // The set of every key only once a request names a pending ID: 100,000 creates name none.
  let keys: Set<string> | undefined;
  const isPlanned = (key: string): boolean => {
    keys ??= new Set(actions.map((action) => action.key));
    return keys.has(key);
  };
  for (const action of actions) {
    // A create of an entry's object derives its request when read, and holds no PendingId unless
    // its kind names another: 100,000 requests made only to be searched were most of this rule's time.
    if (action instanceof EntryCreate && !namesOtherKinds(action)) continue;
    const { request } = action;
    for (const key of pendingKeysIn(request.body)) if (isPlanned(key)) edges.push({ waiter: action, key });
    for (const key of pendingKeysInPath(request.path))
      if (isPlanned(key)) edges.push({ waiter: action, key });
  }
  return edges;
}
