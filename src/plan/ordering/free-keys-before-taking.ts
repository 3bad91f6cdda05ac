import type { LiveObject } from '../../kinds/live-state.js';
import type { DesiredEntry } from '../../manifest/desired-state.js';
import type { DraftAction } from '../draft-action.js';
import type { PlanInputs } from '../plan-inputs.js';
import { type ItemTakeover, itemTakeovers } from '../unique-keys.js';
import type { DependencyEdges, Edge } from './dependency-edges.js';
import type { ActionFacts, OrderingFacts } from './ordering-facts.js';

/**
 * Ordering rule 3 of docs/plan.md, for unique keys: the service holds one
 * object per uniqueness key (one rule per CIDR and IP policy), so whatever
 * takes a key waits for the delete or update that frees it. A freer that
 * already waits for the taker (a temporary rule's delete, drafted to follow
 * it) is not waited for: `earlier` holds the edges found before this rule.
 */
export function freeKeysBeforeTaking(facts: OrderingFacts, earlier: DependencyEdges): Edge[] {
  const edges: Edge[] = [];
  const freedBy = new Map<string, ActionFacts[]>();
  for (const of of facts.list) {
    if (of.frees === undefined) continue;
    const freers = freedBy.get(of.frees);
    if (freers === undefined) freedBy.set(of.frees, [of]);
    else freers.push(of);
  }
  if (freedBy.size === 0) return edges;
  for (const [key, takers] of facts.takers) {
    const freers = freedBy.get(key);
    if (freers === undefined) continue;
    for (const taker of takers) {
      for (const freer of freers) {
        if (freer !== taker && !earlier.of(freer.action).has(taker.action.key))
          edges.push({ waiter: taker.action, key: freer.action.key });
      }
    }
  }
  return edges;
}

/**
 * Ordering rule 3 of docs/plan.md, for unique items: one edge per hostport.
 * An edge that takes a hostport another edge of ours serves waits for that
 * edge's delete, or for the update that drops it. Returns the takeovers:
 * a second copy of the taker's own entry holding the item goes first, though
 * it would otherwise wait for the copy kept (rule 7), since the service
 * gives the item to the kept copy only once the other lets it go.
 */
export function freeItemsBeforeTaking(
  inputs: PlanInputs,
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
  actions: readonly DraftAction[],
): { readonly edges: Edge[]; readonly takeovers: readonly ItemTakeover[] } {
  const edges: Edge[] = [];
  const takeovers = itemTakeovers(inputs, claims, actions);
  for (const { takers, releases } of takeovers)
    for (const taker of takers)
      for (const release of releases) edges.push({ waiter: taker, key: release.key });
  return { edges, takeovers };
}
