import type { AddressRange, Kind } from '../kinds/kind.js';
import type { DraftAction } from './draft-action.js';
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
  const facts: OrderingFacts = {};
  const key = uniqueKeyValue(kind, spec);
  if (key !== undefined) facts[role] = key;
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

/** An update that changes the uniqueness key frees the old value and takes the new one. */
export function keyMove(
  kind: Kind,
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): OrderingFacts {
  const { frees } = orderingFacts(kind, before, 'frees');
  const { takes, access } = orderingFacts(kind, after, 'takes');
  if (takes === undefined || frees === undefined || takes === frees) return {};
  return { takes, frees, ...(access === undefined ? {} : { access }) };
}

/** Fills in every action's `dependsOn` by the rules below, once every action of the plan is known. */
export function orderActions(state: PlanState): void {
  waitForPendingIds(state.actions);
  moveReferencesBeforeDeletes(state);
  const takers = freeKeysBeforeTaking(state.actions);
  orderReplacements(state, takers);
  neverWidenAccess(state);
}

/** A request naming an ID that another action creates waits for that create. */
function waitForPendingIds(actions: readonly DraftAction[]): void {
  const keys = new Set(actions.map((action) => action.key));
  for (const action of actions) {
    for (const key of [...pendingKeysIn(action.request.body), ...pendingKeysInPath(action.request.path)]) {
      if (keys.has(key)) action.dependsOn.add(key);
    }
  }
}

/**
 * References move off an object before it is deleted: the delete waits for
 * every action on an object whose live state names it.
 */
function moveReferencesBeforeDeletes(state: PlanState): void {
  const referrers = new Map<string, string[]>();
  for (const object of state.liveById.values()) {
    const kind = state.kindsByName.get(object.kind);
    if (kind === undefined) continue;
    for (const id of referencedIds(kind, object.spec))
      referrers.set(id, [...(referrers.get(id) ?? []), object.id]);
  }
  const actionsByObject = new Map<string, DraftAction[]>();
  for (const action of state.actions) {
    if (action.objectId === undefined) continue;
    actionsByObject.set(action.objectId, [...(actionsByObject.get(action.objectId) ?? []), action]);
  }
  for (const action of state.actions) {
    if (action.op !== 'delete' || action.objectId === undefined) continue;
    for (const referrer of referrers.get(action.objectId) ?? []) {
      if (referrer === action.objectId) continue;
      const moves = actionsByObject.get(referrer) ?? [];
      // Nothing in the plan changes the object that names this one, so the
      // service would refuse the delete: say so now, with both names.
      if (moves.length === 0) reportStillReferenced(state, action, referrer);
      for (const other of moves) action.dependsOn.add(other.key);
    }
  }
}

function reportStillReferenced(state: PlanState, remove: DraftAction, referrerId: string): void {
  const referrer = state.liveById.get(referrerId);
  const owner =
    referrer?.marker?.owner === state.options.owner ? ` (${referrer.kind}.${referrer.marker.name})` : '';
  // The entry that keeps naming it is where a person fixes this.
  const source = state.entryByObjectId.get(referrerId)?.location ?? remove.source;
  state.errors.push({
    code: 'still_referenced',
    message: `${remove.change} (${remove.objectId}) cannot be deleted: ${referrer?.kind ?? 'object'} ${referrerId}${owner} still names it and this plan does not change that`,
    ...(source ? { source } : {}),
  });
}

/**
 * The service holds one object per uniqueness key (one rule per CIDR and IP
 * policy): whatever takes a key waits for the delete that frees it. Returns
 * the keys of the actions taking each key value.
 */
function freeKeysBeforeTaking(actions: readonly DraftAction[]): Map<string, string[]> {
  const freedBy = new Map<string, string[]>();
  for (const action of actions) {
    if (action.frees !== undefined)
      freedBy.set(action.frees, [...(freedBy.get(action.frees) ?? []), action.key]);
  }
  const takers = new Map<string, string[]>();
  for (const action of actions) {
    if (action.takes === undefined) continue;
    takers.set(action.takes, [...(takers.get(action.takes) ?? []), action.key]);
    for (const key of freedBy.get(action.takes) ?? []) if (key !== action.key) action.dependsOn.add(key);
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
  const byKey = new Map(state.actions.map((action) => [action.key, action]));
  for (const [deleteKey, createKey] of state.replacements) {
    const remove = byKey.get(deleteKey);
    if (remove === undefined) continue;
    const keyWanted = remove.frees !== undefined && (takers.get(remove.frees) ?? []).length > 0;
    if (!keyWanted && remove.access !== 'allow') remove.dependsOn.add(createKey);
    else byKey.get(createKey)?.dependsOn.add(deleteKey);
  }
}

/**
 * Access never widens mid-apply. Creating a deny rule or deleting an allow
 * rule only narrows access, so those go first: an allow create waits for
 * every deny create it overlaps, and a deny delete waits for every allow
 * delete it overlaps. Overlap is the condition because a rule decides only
 * for the addresses in its range: an allow created before a disjoint deny,
 * or a deny deleted before a disjoint allow, opens no address that the old
 * and the new state both keep closed, so tying them together would only
 * let one failed deny hold back every allow and grow the plan with
 * denies × allows edges.
 * Ranges are compared regardless of IP policy, since an endpoint may list
 * several policies. A rule whose action flips on the same CIDR must be
 * deleted before it is re-created (uniqueness above), and a CIDR overlaps
 * itself: the old allow of an allow→deny flip is deleted early and its deny
 * created before any overlapping allow, while the old deny of a deny→allow
 * flip is deleted only after every overlapping allow is gone and its allow
 * is created after every overlapping deny, so no moment between the two
 * states grants more than either of them does.
 */
function neverWidenAccess(state: PlanState): void {
  for (const kind of state.kindsByName.values()) {
    if (kind.accessDecision === undefined) continue;
    const ofKind = state.actions.filter((action) => action.kind === kind.name && action.access !== undefined);
    const denyCreates = ofKind.filter(
      (action) => action.takes !== undefined && action.op === 'create' && action.access === 'deny',
    );
    const allowCreates = ofKind.filter((action) => action.op === 'create' && action.access === 'allow');
    const allowDeletes = ofKind.filter((action) => action.op === 'delete' && action.access === 'allow');
    const denyDeletes = ofKind.filter((action) => action.op === 'delete' && action.access === 'deny');
    forEachOverlap(allowCreates, denyCreates, (allow, deny) => allow.dependsOn.add(deny.key));
    forEachOverlap(denyDeletes, allowDeletes, (deny, allow) => deny.dependsOn.add(allow.key));
  }
}

/**
 * Calls `visit` once for every pair of a `left` and a `right` action whose
 * ranges overlap; an action without a range overlaps everything. A sweep
 * over each family's ranges sorted by first address, so the cost is
 * n log n plus the number of overlapping pairs, not left × right.
 */
function forEachOverlap(
  left: readonly DraftAction[],
  right: readonly DraftAction[],
  visit: (left: DraftAction, right: DraftAction) => void,
): void {
  if (left.length === 0 || right.length === 0) return;
  type Start = { readonly action: DraftAction; readonly range: AddressRange; readonly side: 0 | 1 };
  const starts: Start[] = [];
  for (const [side, actions] of [left, right].entries()) {
    for (const action of actions) {
      if (action.range !== undefined) starts.push({ action, range: action.range, side: side as 0 | 1 });
      else if (side === 0) for (const other of right) visit(action, other);
      // an unranged right action pairs with every ranged left one; unranged pairs were visited above
      else for (const other of left) if (other.range !== undefined) visit(other, action);
    }
  }
  starts.sort(
    (a, b) =>
      a.range.family.localeCompare(b.range.family) ||
      (a.range.first < b.range.first ? -1 : a.range.first > b.range.first ? 1 : 0),
  );
  // Ranges open on each side: every one started no later than the current
  // start; those that end before it are dropped when next looked at.
  let open: [Start[], Start[]] = [[], []];
  let family: string | undefined;
  for (const start of starts) {
    if (start.range.family !== family) {
      family = start.range.family;
      open = [[], []];
    }
    const otherSide = start.side === 0 ? 1 : 0;
    const stillOpen = open[otherSide].filter((other) => other.range.last >= start.range.first);
    open[otherSide] = stillOpen;
    for (const other of stillOpen) {
      if (start.side === 0) visit(start.action, other.action);
      else visit(other.action, start.action);
    }
    open[start.side].push(start);
  }
}
