import type { AddressRange } from '../../kinds/kind.js';
import type { Edge } from './dependency-edges.js';
import type { ActionFacts, OrderingFacts } from './ordering-facts.js';

/**
 * Ordering rule 4 of docs/plan.md: access never widens mid-apply. Every
 * access change either narrows access for a range (a deny created, an allow
 * deleted) or widens it (an allow created, a deny deleted); an update that
 * moves a rule's CIDR does both at once: a deny narrows where it arrives and
 * widens where it leaves, an allow the other way round. The rule: every
 * widening waits for every narrowing whose range overlaps it. Then, for any
 * one address, every change that narrows it has landed before any change
 * that widens it, so while the narrowings land the address is open only if
 * it was open before the plan, and once they have all landed only if it is
 * open after it: no moment grants what neither state grants.
 * Overlap is the condition because a rule decides only for the addresses in
 * its range: tying disjoint changes together would let one failed deny hold
 * back every allow and grow the plan with denies × allows edges. Ranges are
 * compared regardless of IP policy, since an endpoint may list several
 * policies. A rule whose action flips on the same CIDR is deleted before it
 * is re-created (rule 3), and a CIDR overlaps itself: an allow→deny flip
 * narrows twice and goes early; a deny→allow flip widens twice and waits for
 * every overlapping narrowing.
 */
export function neverWidenAccess(facts: OrderingFacts): Edge[] {
  const edges: Edge[] = [];
  for (const kind of facts.kindsByName.values()) {
    if (kind.accessDecision === undefined) continue;
    const narrowings = new RangedActions();
    const widenings = new RangedActions();
    for (const of of facts.list) {
      if (of.action.kind !== kind.name || of.access === undefined) continue;
      // A create or a delete has one range, added as it is: two lists and their iterators per rule
      // were most of this loop's garbage in a cold plan of 10,000 creates.
      const effect = singleRangeEffect(of);
      if (effect !== undefined) {
        (effect === 'narrows' ? narrowings : widenings).add(of, of.range);
        continue;
      }
      const effects = accessEffects(of);
      for (const range of effects.narrows) narrowings.add(of, range);
      for (const range of effects.widens) widenings.add(of, range);
    }
    forEachOverlap(widenings, narrowings, (widening, narrowing) => {
      if (widening === narrowing || narrowing.unparks === widening.action.key) return;
      edges.push({ waiter: widening.action, key: narrowing.action.key });
    });
  }
  return edges;
}

/**
 * Actions, each with one range it narrows or widens (undefined when unknown:
 * it overlaps every range), as two lists side by side: an { action, range }
 * pair per rule was ~40 bytes each, 100,000 of them held through the sweep.
 */
class RangedActions {
  readonly actions: ActionFacts[] = [];
  readonly ranges: (AddressRange | undefined)[] = [];

  get length(): number {
    return this.actions.length;
  }

  add(action: ActionFacts, range: AddressRange | undefined): void {
    this.actions.push(action);
    this.ranges.push(range);
  }
}

/**
 * The ranges an access change narrows and widens. A rule parked on its way
 * (rule 8) and a deny whose target a temporary deny already holds are told
 * by their facts.
 */
export function accessEffects(of: ActionFacts): {
  narrows: (AddressRange | undefined)[];
  widens: (AddressRange | undefined)[];
} {
  const single = singleRangeEffect(of);
  if (single === 'narrows') return { narrows: [of.range], widens: [] };
  if (single === 'widens') return { narrows: [], widens: [of.range] };
  const allow = of.access === 'allow';
  if (of.action.op !== 'update' && of.action.op !== 'adopt') return { narrows: [], widens: [] };
  // An update only matters to access when it moves the rule to another range,
  // and then only where the two ranges differ: the rule decides the same for
  // the addresses both cover, before and after.
  if (of.takes === undefined) return { narrows: [], widens: [] };
  const { range, movedFrom } = of;
  if (range === undefined || movedFrom === undefined)
    return { narrows: [movedFrom, range], widens: [movedFrom, range] };
  const arrives = subtract(range, movedFrom);
  const leaves = subtract(movedFrom, range);
  // A deny whose target a temporary deny already holds closes nothing new where it arrives.
  if (of.guardedBy !== undefined && !allow) return { narrows: [], widens: leaves };
  return allow ? { narrows: leaves, widens: arrives } : { narrows: arrives, widens: leaves };
}

/** What a create or a delete does to access over its one range: a deny created or an allow deleted narrows it. */
function singleRangeEffect(of: ActionFacts): 'narrows' | 'widens' | undefined {
  if (of.action.op !== 'create' && of.action.op !== 'delete') return undefined;
  return (of.access === 'allow') === (of.action.op === 'delete') ? 'narrows' : 'widens';
}

/** The addresses of `a` that `b` does not cover: none, one or two ranges. */
function subtract(a: AddressRange, b: AddressRange): AddressRange[] {
  if (a.family !== b.family || b.last < a.first || a.last < b.first) return [a];
  const left: AddressRange[] = [];
  if (a.first < b.first) left.push({ family: a.family, first: a.first, last: b.first - 1n });
  if (b.last < a.last) left.push({ family: a.family, first: b.last + 1n, last: a.last });
  return left;
}

/**
 * Calls `visit` once for every pair of a `left` and a `right` action whose
 * ranges overlap; an action without a range overlaps everything. A sweep
 * over each family's ranges sorted by first address, so the cost is
 * n log n plus the number of overlapping pairs, not left × right.
 * Items are numbered, left ones first: the sweep sorts and holds numbers, not
 * an object per item.
 */
function forEachOverlap(
  left: RangedActions,
  right: RangedActions,
  visit: (left: ActionFacts, right: ActionFacts) => void,
): void {
  if (left.length === 0 || right.length === 0) return;
  const sideOf = (item: number): 0 | 1 => (item < left.length ? 0 : 1);
  const actionOf = (item: number): ActionFacts =>
    (item < left.length ? left.actions[item] : right.actions[item - left.length]) as ActionFacts;
  const rangeOf = (item: number): AddressRange =>
    (item < left.length ? left.ranges[item] : right.ranges[item - left.length]) as AddressRange;
  // Sized once for every item and cut to the ranged ones: grown by push, a list of 100,000 left its
  // earlier copies as garbage at the plan's peak.
  const starts = new Array<number>(left.length + right.length);
  let ranged = 0;
  for (let item = 0; item < left.length; item += 1) {
    if (left.ranges[item] !== undefined) starts[ranged++] = item;
    else for (const other of right.actions) visit(left.actions[item] as ActionFacts, other);
  }
  for (let index = 0; index < right.length; index += 1) {
    if (right.ranges[index] !== undefined) starts[ranged++] = left.length + index;
    // an unranged right item pairs with every ranged left one; unranged pairs were visited above
    else
      for (let item = 0; item < left.length; item += 1)
        if (left.ranges[item] !== undefined)
          visit(left.actions[item] as ActionFacts, right.actions[index] as ActionFacts);
  }
  starts.length = ranged;
  // Plain comparisons: localeCompare on the family was most of this sort at 100,000 rules.
  // Ties in item order, as the stable sort of the items kept them.
  starts.sort((a, b) => {
    const rangeA = rangeOf(a);
    const rangeB = rangeOf(b);
    if (rangeA.family !== rangeB.family) return rangeA.family < rangeB.family ? -1 : 1;
    if (rangeA.first !== rangeB.first) return rangeA.first < rangeB.first ? -1 : 1;
    return a - b;
  });
  // Ranges open on each side: every one started no later than the current
  // start; those that end before it are dropped when next looked at.
  let open: [number[], number[]] = [[], []];
  let family: string | undefined;
  for (const start of starts) {
    const range = rangeOf(start);
    if (range.family !== family) {
      family = range.family;
      open = [[], []];
    }
    const side = sideOf(start);
    // Ranges that ended are dropped in place: a filtered copy per start was garbage at 100,000 rules.
    const stillOpen = open[side === 0 ? 1 : 0];
    // Index loops: an iterator per start in cold code.
    let kept = 0;
    for (let at = 0; at < stillOpen.length; at += 1) {
      const other = stillOpen[at] as number;
      if (rangeOf(other).last >= range.first) stillOpen[kept++] = other;
    }
    stillOpen.length = kept;
    for (let at = 0; at < kept; at += 1) {
      const other = stillOpen[at] as number;
      if (side === 0) visit(actionOf(start), actionOf(other));
      else visit(actionOf(other), actionOf(start));
    }
    open[side].push(start);
  }
}
