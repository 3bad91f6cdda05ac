import type { Edge } from './dependency-edges.js';
import type { ActionFacts, OrderingFacts } from './ordering-facts.js';

/**
 * Ordering rule 6 of docs/plan.md: an edge's guard never opens mid-apply.
 * On one edge, a guard action (ModuleRule.guard) either closes (a module
 * put and enabled) or opens (a module removed, or put disabled): every
 * opening waits for every closing, so a route moving from one guard to the
 * other is never unguarded in between. A guard that swaps what it accepts at
 * once (mutual TLS: its CAs) both closes and opens: the CAs it adds let
 * certificates through that a route's OIDC now stops, so it also waits for
 * every put of the edge's other guards: the routes gaining OIDC are closed
 * to every certificate before the edge accepts new ones.
 */
export function neverOpenGuards(facts: OrderingFacts): Edge[] {
  const edges: Edge[] = [];
  const closings = new Map<string, ActionFacts[]>();
  for (const of of facts.list) {
    if (of.guard?.effect !== 'closes' || of.objectId === undefined) continue;
    closings.set(of.objectId, [...(closings.get(of.objectId) ?? []), of]);
  }
  for (const of of facts.list) {
    const { guard } = of;
    if (guard === undefined) continue;
    for (const closing of closings.get(of.objectId ?? '') ?? []) {
      if (closing === of) continue;
      if (guard.effect === 'opens' || (guard.swapsAtOnce && closing.guard?.swapsAtOnce !== true))
        edges.push({ waiter: of.action, key: closing.action.key });
    }
  }
  return edges;
}
