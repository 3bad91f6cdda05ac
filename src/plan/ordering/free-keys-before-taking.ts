import type { KeyNumber } from '../planner-options.js';
import type { ItemTakeover } from '../unique-items.js';
import type { DependencyEdges, Edge } from './dependency-edges.js';
import type { ActionFacts, OrderingFacts } from './ordering-facts.js';

/**
 * Ordering rule 3 of docs/plan.md: the service holds one object per
 * uniqueness key (one rule per CIDR and IP policy) and gives each unique
 * item (a hostport) to one object, so whatever takes a key or an item waits
 * for the delete or update that frees it. `earlier`: the edges of rules 1
 * and 2 (and of parked moves), found before this rule. Returns the edges
 * for items, then those for keys.
 */
export function freeBeforeTaking(
  facts: OrderingFacts,
  takeovers: readonly ItemTakeover[],
  earlier: DependencyEdges,
): Edge[] {
  const items = freeItemsBeforeTaking(takeovers);
  return [...items, ...freeKeysBeforeTaking(facts, earlier, items)];
}

/**
 * For unique items: an edge that takes a hostport another edge of ours
 * serves waits for that edge's delete, or for the update that drops it. The
 * takeovers were found while drafting (unique-items.ts); rule 7 reads them
 * too.
 */
function freeItemsBeforeTaking(takeovers: readonly ItemTakeover[]): Edge[] {
  const edges: Edge[] = [];
  for (const { takers, releases } of takeovers)
    for (const taker of takers)
      for (const release of releases) edges.push({ waiter: taker, key: release.key });
  return edges;
}

/**
 * For unique keys: a taker waits for each freer of its key. A freer that
 * already waits for the taker (a temporary rule's delete, drafted to follow
 * it; `earlier`, or an item's edge) is not waited for.
 */
function freeKeysBeforeTaking(
  facts: OrderingFacts,
  earlier: DependencyEdges,
  items: readonly Edge[],
): Edge[] {
  const edges: Edge[] = [];
  const freedBy = new Map<KeyNumber, ActionFacts[]>();
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
        const waitsAlready =
          earlier.of(freer.action).has(taker.action.key) ||
          items.some((edge) => edge.waiter === freer.action && edge.key === taker.action.key);
        if (freer !== taker && !waitsAlready) edges.push({ waiter: taker.action, key: freer.action.key });
      }
    }
  }
  return edges;
}
