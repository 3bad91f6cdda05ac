import type { AddressRange, Kind, ModuleRule } from '../kinds/kind.js';
import { addDependency, type DraftAction } from './draft-action.js';
import { pendingKeysIn, pendingKeysInPath } from './pending-id.js';
import type { PlanState } from './plan-state.js';
import { referencedIds } from './spec-fields.js';
import { uniqueKeyValue } from './unique-keys.js';

/** What the ordering rules need to know about an action's spec. */
export interface OrderingFacts {
  takes?: string;
  frees?: string;
  access?: 'allow' | 'deny';
  range?: AddressRange;
  /** For an update that moves a rule: the range it leaves (`range` is where it arrives). */
  movedFrom?: AddressRange;
}

/**
 * Uniqueness-key value (taken or freed, as `role` says), access decision and
 * address range of a spec, for the ordering rules.
 */
export function orderingFacts(
  kind: Kind,
  spec: Readonly<Record<string, unknown>>,
  role: 'takes' | 'frees',
): OrderingFacts {
  const facts = accessFacts(kind, spec);
  const key = uniqueKeyValue(kind, spec);
  if (key !== undefined) facts[role] = key;
  return facts;
}

/** Access decision and address range of a spec, for the ordering rules. */
export function accessFacts(kind: Kind, spec: Readonly<Record<string, unknown>>): OrderingFacts {
  const facts: OrderingFacts = {};
  const decision = kind.accessDecision;
  if (decision !== undefined) {
    const value = spec[decision.field];
    if (value === decision.allow) facts.access = 'allow';
    if (value === decision.deny) facts.access = 'deny';
    const range = facts.access === undefined ? undefined : decision.range?.(spec);
    if (range !== undefined) facts.range = range;
  }
  return facts;
}

/**
 * The uniqueness-key value an action takes: as drafted, or, for a create,
 * printed from its spec each time it is asked (see DraftAction.takenFrom).
 */
export function takenKey(state: PlanState, action: DraftAction): string | undefined {
  if (action.takes !== undefined || action.takenFrom === undefined) return action.takes;
  const kind = state.kindsByName.get(action.kind);
  return kind === undefined ? undefined : uniqueKeyValue(kind, action.takenFrom);
}

/**
 * An update that changes the uniqueness key frees the old value and takes
 * the new one; for an access rule it also leaves one range and arrives at
 * another, which the access ordering treats like a delete and a create.
 */
export function keyMove(
  kind: Kind,
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): OrderingFacts {
  const { frees, range: movedFrom } = orderingFacts(kind, before, 'frees');
  const { takes, access, range } = orderingFacts(kind, after, 'takes');
  if (takes === undefined || frees === undefined || takes === frees) return {};
  return {
    takes,
    frees,
    ...(access === undefined ? {} : { access }),
    ...(range === undefined ? {} : { range }),
    ...(movedFrom === undefined ? {} : { movedFrom }),
  };
}

/** Fills in every action's `dependsOn` by the rules below, once every action of the plan is known. */
export function orderActions(state: PlanState): void {
  waitForPendingIds(state.actions);
  moveReferencesBeforeDeletes(state);
  // Who takes which key is asked only about replacements: 100,000 creates and none is a map of 100,000 lists.
  const takers = freeKeysBeforeTaking(state, state.replacements.size > 0);
  orderReplacements(state, takers);
  neverWidenAccess(state);
  neverOpenGuards(state);
  switchPoliciesBetweenPhases(state);
}

/** The module an action writes or removes, with its rule; undefined for other actions. */
function moduleOf(state: PlanState, action: DraftAction): ModuleRule | undefined {
  if (action.op !== 'put-module' && action.op !== 'delete-module') return undefined;
  const name = action.change.slice(action.change.lastIndexOf('.') + 1);
  return state.kindsByName.get(action.kind)?.modules.find((module) => module.name === name);
}

/**
 * An edge's guard never opens mid-apply. On one edge, a guard action either
 * closes (a module put and enabled) or opens (a module removed, or put
 * disabled): every opening waits for every closing, so a route moving from
 * one guard to the other is never unguarded in between. A guard that swaps
 * what it accepts at once (mutual TLS: its CAs) both closes and opens: the
 * CAs it adds let certificates through that a route's OIDC now stops, so it
 * also waits for every put of the edge's other guards: the routes gaining
 * OIDC are closed to every certificate before the edge accepts new ones.
 */
function neverOpenGuards(state: PlanState): void {
  const { actions } = state;
  const closings = new Map<string, DraftAction[]>();
  for (const action of actions) {
    if (guardEffect(state, action) !== 'closes' || action.objectId === undefined) continue;
    closings.set(action.objectId, [...(closings.get(action.objectId) ?? []), action]);
  }
  for (const action of actions) {
    const effect = guardEffect(state, action);
    if (effect === undefined) continue;
    const swapsAtOnce = moduleOf(state, action)?.guard?.swapsAtOnce === true;
    for (const closing of closings.get(action.objectId ?? '') ?? []) {
      if (closing === action) continue;
      if (effect === 'opens' || (swapsAtOnce && moduleOf(state, closing)?.guard?.swapsAtOnce !== true))
        addDependency(action, closing.key);
    }
  }
}

/** Whether a guard module action closes its edge (or route) to clients or opens it; undefined when not a guard action. */
function guardEffect(state: PlanState, action: DraftAction): 'closes' | 'opens' | undefined {
  const module = moduleOf(state, action);
  if (module?.guard === undefined) return undefined;
  if (action.op === 'delete-module') return 'opens';
  const body = action.request.body as Readonly<Record<string, unknown>> | null | undefined;
  // The HTTPS edge's mutual TLS is written by the edge's PATCH: the module is under its name.
  const value = (
    body !== null && typeof body === 'object' && module.name in body ? body[module.name] : body
  ) as Readonly<Record<string, unknown>> | null | undefined;
  if (value === null || value === undefined || value.enabled === false) return 'opens';
  return 'closes';
}

/**
 * An endpoint that changes from one list of IP policies to another switches
 * between the two phases of the access ordering: after every rule change
 * that only narrows, before every one that only widens. While the narrowings land it checks the old list
 * against rules no more open than before; once it checks the new list, the
 * rules are no more open than after the plan, and stay so while the
 * widenings land.
 */
function switchPoliciesBetweenPhases(state: PlanState): void {
  const switches = policySwitches(state);
  if (switches.length === 0) return;
  for (const action of state.actions) {
    const phase = phaseOf(state, action);
    if (phase === 'narrows') for (const change of switches) addDependency(change, action.key);
    if (phase === 'widens') for (const change of switches) addDependency(action, change.key);
  }
}

/**
 * Adding a restriction only narrows (the endpoint was open to all) and
 * removing one leaves the endpoint open to all, as after the plan: only a
 * change from one list to another sits between the phases.
 */
function policySwitches(state: PlanState): DraftAction[] {
  return state.actions.filter((action) => {
    const module = moduleOf(state, action);
    if (action.op !== 'put-module' || module?.namesIpPolicies !== true) return false;
    const live = state.liveById.get(action.objectId ?? '')?.spec[module.name];
    return live !== null && live !== undefined;
  });
}

/**
 * Which phase an access change belongs to. A rule parked on its way (see
 * park-moves.ts) narrows when it leaves its range for the guarded spot and
 * widens when it leaves the spot for its target; a move that does both at
 * once belongs to neither.
 */
function phaseOf(state: PlanState, action: DraftAction): 'narrows' | 'widens' | 'both' | undefined {
  if (action.access === undefined || state.kindsByName.get(action.kind)?.accessDecision === undefined)
    return undefined;
  if (action.unparks !== undefined || action.guardedBy !== undefined) return 'widens';
  if (state.actions.some((other) => other.unparks === action.key)) return 'narrows';
  const effects = accessEffects(action);
  const narrows = effects.narrows.length > 0;
  const widens = effects.widens.length > 0;
  if (narrows && widens) return 'both';
  return narrows ? 'narrows' : widens ? 'widens' : undefined;
}

/**
 * A rule that moves while an endpoint switches policy lists, and so belongs
 * to neither phase: park-moves.ts splits an allow in two and guards a deny's
 * target with a temporary deny.
 */
export function moveAcrossPolicySwitch(state: PlanState): DraftAction | undefined {
  if (policySwitches(state).length === 0) return undefined;
  return state.actions.find((action) => phaseOf(state, action) === 'both');
}

/** A request naming an ID that another action creates waits for that create. */
function waitForPendingIds(actions: readonly DraftAction[]): void {
  // The set of every key only once a request names a pending ID: 100,000 creates name none (issue 18).
  let keys: Set<string> | undefined;
  const isPlanned = (key: string): boolean => {
    keys ??= new Set(actions.map((action) => action.key));
    return keys.has(key);
  };
  for (const action of actions) {
    for (const key of pendingKeysIn(action.request.body)) if (isPlanned(key)) addDependency(action, key);
    for (const key of pendingKeysInPath(action.request.path)) if (isPlanned(key)) addDependency(action, key);
  }
}

/**
 * References move off an object before it is deleted: the delete waits for
 * every action on an object whose live state names it.
 */
function moveReferencesBeforeDeletes(state: PlanState): void {
  // Who names whom is read only for a delete: a plan without one (no-ops) needs no map of the account.
  if (!state.actions.some((action) => action.op === 'delete' && action.objectId !== undefined)) return;
  const referrers = new Map<string, string[]>();
  for (const object of state.liveById.values()) {
    const kind = state.kindsByName.get(object.kind);
    if (kind === undefined) continue;
    for (const id of referencedIds(kind, object.spec)) {
      // Pushed, not copied: 100,000 rules name one policy.
      const named = referrers.get(id);
      if (named === undefined) referrers.set(id, [object.id]);
      else named.push(object.id);
    }
  }
  const actionsByObject = new Map<string, DraftAction[]>();
  for (const action of state.actions) {
    if (action.objectId === undefined) continue;
    const onObject = actionsByObject.get(action.objectId);
    if (onObject === undefined) actionsByObject.set(action.objectId, [action]);
    else onObject.push(action);
  }
  for (const action of state.actions) {
    if (action.op !== 'delete' || action.objectId === undefined) continue;
    for (const referrer of referrers.get(action.objectId) ?? []) {
      if (referrer === action.objectId) continue;
      const moves = actionsByObject.get(referrer) ?? [];
      // Nothing in the plan changes the object that names this one, so the
      // service would refuse the delete: say so now, with both names.
      if (moves.length === 0) reportStillReferenced(state, action, referrer);
      for (const other of moves) addDependency(action, other.key);
    }
  }
}

function reportStillReferenced(state: PlanState, remove: DraftAction, referrerId: string): void {
  const referrer = state.liveById.get(referrerId);
  const owner =
    referrer?.marker?.owner === state.options.owner ? ` (${referrer.kind}.${referrer.marker.name})` : '';
  // The entry that keeps naming it is where a person fixes this.
  const source = (referrer && state.entryByObject.get(referrer))?.location ?? remove.source;
  state.errors.push({
    code: 'still_referenced',
    message: `${remove.change} (${remove.objectId}) cannot be deleted: ${referrer?.kind ?? 'object'} ${referrerId}${owner} still names it and this plan does not change that`,
    ...(source ? { source } : {}),
    entry: { kind: remove.kind, name: remove.name },
  });
}

/**
 * The service holds one object per uniqueness key (one rule per CIDR and IP
 * policy): whatever takes a key waits for the delete that frees it. Returns
 * the keys of the actions taking each key value, when `listTakers` asks.
 */
function freeKeysBeforeTaking(state: PlanState, listTakers: boolean): Map<string, string[]> {
  const { actions } = state;
  const freedBy = new Map<string, DraftAction[]>();
  for (const action of actions) {
    if (action.frees === undefined) continue;
    const freers = freedBy.get(action.frees);
    if (freers === undefined) freedBy.set(action.frees, [action]);
    else freers.push(action);
  }
  // What each freer already waits for before this rule adds anything (only freers are asked).
  const before = new Map<DraftAction, Set<string>>();
  for (const freers of freedBy.values())
    for (const freer of freers) before.set(freer, new Set(freer.dependsOn));
  const takers = new Map<string, string[]>();
  // Nothing frees a key and nobody asks who takes one (100,000 creates): no key is printed.
  if (freedBy.size === 0 && !listTakers) return takers;
  for (const action of actions) {
    const takes = takenKey(state, action);
    if (takes === undefined) continue;
    if (listTakers) {
      // Pushed, not copied: a copy per taker was garbage at 100,000 creates (issue 18).
      const taking = takers.get(takes);
      if (taking === undefined) takers.set(takes, [action.key]);
      else taking.push(action.key);
    }
    for (const freer of freedBy.get(takes) ?? []) {
      // A freer drafted to follow this taker frees what the taker takes (a temporary rule's delete).
      if (freer !== action && !before.get(freer)?.has(action.key)) addDependency(action, freer.key);
    }
  }
  return takers;
}

/**
 * A replace creates first so the name never points at nothing, unless the
 * key its old object holds is wanted (by the replacement itself or by
 * another action): then the old object goes first and the uniqueness
 * ordering above makes the takers wait for it. A replaced allow rule also
 * goes first: removing an allow only narrows access, and waiting for its
 * successor would tie it into the deny-before-allow ordering below.
 */
function orderReplacements(state: PlanState, takers: ReadonlyMap<string, readonly string[]>): void {
  // No map of every action by key for a plan without a replace (100,000 creates).
  if (state.replacements.size === 0) return;
  const byKey = new Map(state.actions.map((action) => [action.key, action]));
  for (const [deleteKey, createKey] of state.replacements) {
    const remove = byKey.get(deleteKey);
    if (remove === undefined) continue;
    const create = byKey.get(createKey);
    const keyWanted = remove.frees !== undefined && (takers.get(remove.frees) ?? []).length > 0;
    // An access rule whose old key another action takes (a deny moving to
    // another policy while an allow takes its old CIDR) needs no edge of its
    // own: the taker waits for the delete (uniqueness) and the access
    // ordering places the create and the delete; tying them here too made a
    // cycle with the deny's delete waiting for its own create.
    const keyWantedByOther = keyWanted && (create && takenKey(state, create)) !== remove.frees;
    if (keyWantedByOther && remove.access !== undefined) continue;
    if (!keyWanted && remove.access !== 'allow') addDependency(remove, createKey);
    else if (create !== undefined) addDependency(create, deleteKey);
  }
}

/**
 * Access never widens mid-apply. Every access change either narrows access
 * for a range (a deny created, an allow deleted) or widens it (an allow
 * created, a deny deleted); an update that moves a rule's CIDR does both at
 * once: a deny narrows where it arrives and widens where it leaves, an
 * allow the other way round. The rule: every widening waits for every
 * narrowing whose range overlaps it. Then, for any one address, every
 * change that narrows it has landed before any change that widens it, so
 * while the narrowings land the address is open only if it was open before
 * the plan, and once they have all landed only if it is open after it: no
 * moment grants what neither state grants.
 * Overlap is the condition because a rule decides only for the addresses in
 * its range: tying disjoint changes together would let one failed deny hold
 * back every allow and grow the plan with denies × allows edges. Ranges are
 * compared regardless of IP policy, since an endpoint may list several
 * policies. A rule whose action flips on the same CIDR is deleted before it
 * is re-created (uniqueness above), and a CIDR overlaps itself: an
 * allow→deny flip narrows twice and goes early; a deny→allow flip widens
 * twice and waits for every overlapping narrowing.
 */
function neverWidenAccess(state: PlanState): void {
  for (const kind of state.kindsByName.values()) {
    if (kind.accessDecision === undefined) continue;
    const narrowings = new RangedActions();
    const widenings = new RangedActions();
    for (const action of state.actions) {
      if (action.kind !== kind.name || action.access === undefined) continue;
      // A create or a delete has one range, added as it is: two lists and their iterators per rule
      // were most of this loop's garbage in a cold plan of 10,000 creates (issue 18).
      const effect = singleRangeEffect(action);
      if (effect !== undefined) {
        (effect === 'narrows' ? narrowings : widenings).add(action, action.range);
        continue;
      }
      const effects = accessEffects(action);
      for (const range of effects.narrows) narrowings.add(action, range);
      for (const range of effects.widens) widenings.add(action, range);
    }
    forEachOverlap(widenings, narrowings, (widening, narrowing) => {
      if (widening === narrowing || narrowing.unparks === widening.key) return;
      addDependency(widening, narrowing.key);
    });
  }
}

/**
 * Actions, each with one range it narrows or widens (undefined when unknown:
 * it overlaps every range), as two lists side by side: an { action, range }
 * pair per rule was ~40 bytes each, 100,000 of them held through the sweep (issue 18).
 */
class RangedActions {
  readonly actions: DraftAction[] = [];
  readonly ranges: (AddressRange | undefined)[] = [];

  get length(): number {
    return this.actions.length;
  }

  add(action: DraftAction, range: AddressRange | undefined): void {
    this.actions.push(action);
    this.ranges.push(range);
  }
}

function accessEffects(action: DraftAction): {
  narrows: (AddressRange | undefined)[];
  widens: (AddressRange | undefined)[];
} {
  const single = singleRangeEffect(action);
  if (single === 'narrows') return { narrows: [action.range], widens: [] };
  if (single === 'widens') return { narrows: [], widens: [action.range] };
  const allow = action.access === 'allow';
  if (action.op !== 'update' && action.op !== 'adopt') return { narrows: [], widens: [] };
  // An update only matters to access when it moves the rule to another range,
  // and then only where the two ranges differ: the rule decides the same for
  // the addresses both cover, before and after.
  if (action.takes === undefined) return { narrows: [], widens: [] };
  const { range, movedFrom } = action;
  if (range === undefined || movedFrom === undefined)
    return { narrows: [movedFrom, range], widens: [movedFrom, range] };
  const arrives = subtract(range, movedFrom);
  const leaves = subtract(movedFrom, range);
  // A deny whose target a temporary deny already holds (park-moves.ts) closes nothing new where it arrives.
  if (action.guardedBy !== undefined && !allow) return { narrows: [], widens: leaves };
  return allow ? { narrows: leaves, widens: arrives } : { narrows: arrives, widens: leaves };
}

/** What a create or a delete does to access over its one range: a deny created or an allow deleted narrows it. */
function singleRangeEffect(action: DraftAction): 'narrows' | 'widens' | undefined {
  if (action.op !== 'create' && action.op !== 'delete') return undefined;
  return (action.access === 'allow') === (action.op === 'delete') ? 'narrows' : 'widens';
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
 * an object per item (issue 18).
 */
function forEachOverlap(
  left: RangedActions,
  right: RangedActions,
  visit: (left: DraftAction, right: DraftAction) => void,
): void {
  if (left.length === 0 || right.length === 0) return;
  const sideOf = (item: number): 0 | 1 => (item < left.length ? 0 : 1);
  const actionOf = (item: number): DraftAction =>
    (item < left.length ? left.actions[item] : right.actions[item - left.length]) as DraftAction;
  const rangeOf = (item: number): AddressRange =>
    (item < left.length ? left.ranges[item] : right.ranges[item - left.length]) as AddressRange;
  // Sized once for every item and cut to the ranged ones: grown by push, a list of 100,000 left its
  // earlier copies as garbage at the plan's peak (issue 18).
  const starts = new Array<number>(left.length + right.length);
  let ranged = 0;
  for (let item = 0; item < left.length; item += 1) {
    if (left.ranges[item] !== undefined) starts[ranged++] = item;
    else for (const other of right.actions) visit(left.actions[item] as DraftAction, other);
  }
  for (let index = 0; index < right.length; index += 1) {
    if (right.ranges[index] !== undefined) starts[ranged++] = left.length + index;
    // an unranged right item pairs with every ranged left one; unranged pairs were visited above
    else
      for (let item = 0; item < left.length; item += 1)
        if (left.ranges[item] !== undefined)
          visit(left.actions[item] as DraftAction, right.actions[index] as DraftAction);
  }
  starts.length = ranged;
  // Plain comparisons: localeCompare on the family was most of this sort at 100,000 rules (issue 18).
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
    // Index loops: an iterator per start in cold code (issue 18).
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
