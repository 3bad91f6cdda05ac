import type { Edge } from './dependency-edges.js';
import { accessEffects } from './never-widen-access.js';
import { type ActionFacts, isAccessRule, type OrderingFacts } from './ordering-facts.js';

/** What rule 5 found: its edges, and a move it cannot place. */
export interface PolicySwitchOrdering {
  readonly edges: Edge[];
  /**
   * The first rule that moves while an endpoint switches policy lists, and
   * so belongs to neither phase: rule 8 (park-moves.ts) splits an allow in
   * two and guards a deny's target with a temporary deny.
   */
  readonly straddling: ActionFacts | undefined;
}

/**
 * Ordering rule 5 of docs/plan.md: an endpoint that changes from one list
 * of IP policies to another (ModuleRule.namesIpPolicies) switches between
 * the two phases of the access ordering: after every rule change that only
 * narrows, before every one that only widens. While the narrowings land it
 * checks the old list against rules no more open than before; once it
 * checks the new list, the rules are no more open than after the plan, and
 * stay so while the widenings land. Adding a restriction only narrows (the
 * endpoint was open to all) and removing one leaves the endpoint open to
 * all, as after the plan: only a change from one list to another is a
 * switch.
 */
export function switchPoliciesBetweenPhases(facts: OrderingFacts): PolicySwitchOrdering {
  const edges: Edge[] = [];
  const switches = facts.list.filter((of) => of.switchesPolicies);
  if (switches.length === 0) return { edges, straddling: undefined };
  const unparked = unparkedKeys(facts);
  let straddling: ActionFacts | undefined;
  for (const of of facts.list) {
    const phase = phaseOf(facts, of, unparked);
    if (phase === 'narrows')
      for (const change of switches) edges.push({ waiter: change.action, key: of.action.key });
    if (phase === 'widens')
      for (const change of switches) edges.push({ waiter: of.action, key: change.action.key });
    if (phase === 'both') straddling ??= of;
  }
  return { edges, straddling };
}

/**
 * Which phase an access change belongs to. A rule parked on its way (rule
 * 8) narrows when it leaves its range for the guarded spot and widens when
 * it leaves the spot for its target; a move that does both at once belongs
 * to neither.
 */
function phaseOf(
  facts: OrderingFacts,
  of: ActionFacts,
  unparked: ReadonlySet<string>,
): 'narrows' | 'widens' | 'both' | undefined {
  if (!isAccessRule(facts, of)) return undefined;
  if (of.unparks !== undefined || of.guardedBy !== undefined) return 'widens';
  if (unparked.has(of.action.key)) return 'narrows';
  const effects = accessEffects(of);
  const narrows = effects.narrows.length > 0;
  const widens = effects.widens.length > 0;
  if (narrows && widens) return 'both';
  return narrows ? 'narrows' : widens ? 'widens' : undefined;
}

/** The keys of the PATCHes that parked a rule, which a later PATCH moves on. */
function unparkedKeys(facts: OrderingFacts): Set<string> {
  const keys = new Set<string>();
  for (const of of facts.list) if (of.unparks !== undefined) keys.add(of.unparks);
  return keys;
}
