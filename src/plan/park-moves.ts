import type { AddressRange, Kind } from '../kinds/kind.js';
import { encodeMetadata } from '../kinds/ownership-marker.js';
import { type DraftAction, draftAction } from './draft-action.js';
import { moveAcrossPolicySwitch, orderActions } from './order-actions.js';
import { pendingPathSegment } from './pending-id.js';
import type { PlanState } from './plan-state.js';
import { topologicalOrder } from './topological-order.js';
import { uniqueKeyValue } from './unique-keys.js';

/**
 * Parking spots: a temporary deny rule on the first range, a rule parked on
 * its last address. Documentation and discard ranges, which accounts rarely
 * hold rules for; one that overlaps anything the plan or the account holds
 * is passed over.
 */
const PARKING_SPOTS: readonly { readonly guard: string; readonly spot: string }[] = [
  ...['192.0.2.', '198.51.100.', '203.0.113.'].flatMap((net) =>
    [254, 252, 250].map((last) => ({ guard: `${net}${last}/31`, spot: `${net}${last + 1}/32` })),
  ),
  ...['100::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:'].flatMap((net) =>
    [0xfffe, 0xfffc, 0xfffa].map((last) => ({
      guard: `${net}${last.toString(16)}/127`,
      spot: `${net}${(last + 1).toString(16)}/128`,
    })),
  ),
];

/** Marker names of temporary rules start with `~`, which no manifest name can (see the manifest schema). */
export const PARKING_GUARD_PREFIX = '~parking.';

/**
 * Orders the actions (`orderActions`) and, while they wait on each other in
 * a cycle, or an allow rule moves while an endpoint switches policy lists
 * (the move would be in neither phase), splits a rule that moves its range: two rules
 * swapping CIDRs, or a rule moving off a CIDR that a new deny must hold
 * before the move widens anything. The move is split in two PATCHes, first
 * to a parking spot, then to its target, under a temporary deny rule on the
 * spot that is created first and deleted last. The ordering rules then see
 * the parked rule like any other: the spot is closed while it is there.
 */
export function orderActionsParkingMoves(state: PlanState): void {
  const initial = new Map(state.actions.map((action) => [action, new Set(action.dependsOn)]));
  const errorCount = state.errors.length;
  const parked = new Set<string>();
  for (;;) {
    orderActions(state);
    const order = topologicalOrder(
      state.actions.map((action) => ({ key: action.key, dependsOn: [...action.dependsOn] })),
    );
    const straddling = moveAcrossPolicySwitch(state);
    if (order.ok && (straddling === undefined || parked.has(straddling.change))) return;
    const inCycle = new Set(order.ok ? [straddling?.key] : order.cycle);
    // Only an allow is worth parking: leaving its old range narrows (early),
    // reaching the new one widens (late). A parked deny would still have to
    // leave before it arrives.
    const move = state.actions.find(
      (action) =>
        inCycle.has(action.key) &&
        action.movedFrom !== undefined &&
        action.access === 'allow' &&
        !parked.has(action.change),
    );
    if (move === undefined) return;
    parked.add(move.change);
    const added = park(state, move);
    if (added === undefined) return;
    // Order again from the dependencies the actions were drafted with.
    for (const [action, dependsOn] of added)
      initial.set(action, action.key === move.key ? new Set(initial.get(move)) : dependsOn);
    state.errors.length = errorCount;
    for (const action of state.actions) {
      action.dependsOn.clear();
      for (const key of initial.get(action) ?? []) action.dependsOn.add(key);
    }
  }
}

/** Splits `move` in place; returns the new actions with their own dependencies, or undefined when no spot is free. */
function park(state: PlanState, move: DraftAction): Map<DraftAction, Set<string>> | undefined {
  const kind = state.kindsByName.get(move.kind);
  const object = move.objectId === undefined ? undefined : state.liveById.get(move.objectId);
  const decision = kind?.accessDecision;
  const body = move.request.body as Record<string, unknown> | undefined;
  if (kind === undefined || object === undefined || decision?.range === undefined || body === undefined)
    return undefined;
  const field = (kind.uniqueKey ?? []).find(
    (name) => body[name] !== undefined && body[name] !== object.spec[name],
  );
  if (field === undefined) return undefined;
  const spotRange = freeSpot(state, kind, decision.range, field);
  if (spotRange === undefined) return undefined;
  const { guard, spot } = spotRange;
  const keyOf = (spec: Record<string, unknown>): string | undefined => uniqueKeyValue(kind, spec);
  const base = Object.fromEntries((kind.uniqueKey ?? []).map((name) => [name, object.spec[name]]));
  const spotSpec = { ...base, [field]: spot.cidr, [decision.field]: object.spec[decision.field] };
  const guardSpec = { ...base, [field]: guard.cidr, [decision.field]: decision.deny };
  const index = state.actions.indexOf(move);
  const added = new Map<DraftAction, Set<string>>();

  const toSpot: DraftAction = {
    ...move,
    request: kind.updateRequest(object.id, { ...body, [field]: spot.cidr }),
    ...defined('takes', keyOf(spotSpec)),
    range: spot.range,
    dependsOn: new Set(),
  };
  const fromSpot = draftAction({
    key: `${move.key}#from-parking`,
    op: 'update',
    kind: kind.name,
    name: move.name,
    change: move.change,
    request: kind.updateRequest(object.id, { [field]: body[field] }),
    secrets: new Set(),
    objectId: object.id,
    ...(move.source ? { source: move.source } : {}),
    ...defined('takes', move.takes),
    ...defined('frees', keyOf(spotSpec)),
    ...defined('access', move.access),
    ...defined('range', move.range),
    movedFrom: spot.range,
    unparks: move.key,
  });
  fromSpot.dependsOn.add(toSpot.key);
  added.set(toSpot, new Set());
  added.set(fromSpot, new Set(fromSpot.dependsOn));
  const actions = [toSpot, fromSpot];

  // A parked deny narrows the spot, nothing to guard; a parked allow opens it unless a deny holds it.
  if (move.access === 'allow') {
    const guardName = `${PARKING_GUARD_PREFIX}${move.name}`;
    const marker = { owner: state.options.owner, name: guardName };
    const createKey = `create:${move.change}#parking-guard`;
    const guardCreate = draftAction({
      key: createKey,
      op: 'create',
      kind: kind.name,
      name: move.name,
      change: move.change,
      request: kind.createRequest(guardSpec, encodeMetadata(undefined, marker)),
      secrets: new Set(),
      marker,
      ...(move.source ? { source: move.source } : {}),
      ...defined('takes', keyOf(guardSpec)),
      access: 'deny',
      range: guard.range,
    });
    const guardDelete = draftAction({
      key: `delete:${move.change}#parking-guard`,
      op: 'delete',
      kind: kind.name,
      name: move.name,
      change: move.change,
      request: kind.deleteRequest(pendingPathSegment(createKey)),
      secrets: new Set(),
      ...(move.source ? { source: move.source } : {}),
      ...defined('frees', keyOf(guardSpec)),
      access: 'deny',
      range: guard.range,
    });
    guardDelete.dependsOn.add(createKey).add(fromSpot.key);
    added.set(guardCreate, new Set());
    added.set(guardDelete, new Set(guardDelete.dependsOn));
    actions.unshift(guardCreate);
    actions.push(guardDelete);
  }
  state.actions.splice(index, 1, ...actions);
  const draft = state.changes.find((change) => change.change.address === move.change);
  if (draft !== undefined) {
    const position = draft.actionKeys.indexOf(move.key);
    draft.actionKeys.splice(position, 1, ...actions.map((action) => action.key));
  }
  return added;
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The first parking spot whose guard range overlaps no rule of the account or the plan. */
function freeSpot(
  state: PlanState,
  kind: Kind,
  rangeOf: (spec: Readonly<Record<string, unknown>>) => AddressRange | undefined,
  field: string,
):
  | {
      readonly guard: { readonly cidr: string; readonly range: AddressRange };
      readonly spot: { readonly cidr: string; readonly range: AddressRange };
    }
  | undefined {
  const held: AddressRange[] = [];
  for (const object of state.live.objects[kind.name] ?? []) {
    const range = rangeOf(object.spec);
    if (range !== undefined) held.push(range);
  }
  for (const action of state.actions) {
    if (action.kind !== kind.name) continue;
    if (action.range !== undefined) held.push(action.range);
    if (action.movedFrom !== undefined) held.push(action.movedFrom);
  }
  for (const { guard, spot } of PARKING_SPOTS) {
    const guardRange = rangeOf({ [field]: guard });
    const spotRange = rangeOf({ [field]: spot });
    if (guardRange === undefined || spotRange === undefined) continue;
    const overlaps = held.some(
      (range) =>
        range.family === guardRange.family &&
        range.first <= guardRange.last &&
        guardRange.first <= range.last,
    );
    if (!overlaps)
      return { guard: { cidr: guard, range: guardRange }, spot: { cidr: spot, range: spotRange } };
  }
  return undefined;
}
