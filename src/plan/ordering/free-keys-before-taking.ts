import type { ItemTakeover } from '../unique-items.js';
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
 * edge's delete, or for the update that drops it. The takeovers were found
 * while drafting (unique-items.ts); rule 7 reads them too.
 */
export function freeItemsBeforeTaking(takeovers: readonly ItemTakeover[]): Edge[] {
  const edges: Edge[] = [];
  for (const { takers, releases } of takeovers)
    for (const taker of takers)
      for (const release of releases) edges.push({ waiter: taker, key: release.key });
  return edges;
}
