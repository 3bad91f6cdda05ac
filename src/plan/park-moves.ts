import ipaddr from 'ipaddr.js';
import type { AddressRange, Kind } from '../kinds/kind.js';
import { encodeMetadata } from '../kinds/ownership-marker.js';
import { addDependency, type DraftAction, draftAction, NO_DEPENDENCIES } from './draft-action.js';
import { moveAcrossPolicySwitch, orderActions, takenKey } from './order-actions.js';
import { pendingPathSegment } from './pending-id.js';
import type { PlanState } from './plan-state.js';
import { topologicalOrder } from './topological-order.js';
import { uniqueKeyValue } from './unique-keys.js';

/** Marker names of temporary rules start with `~`, which no manifest name can (see the manifest schema). */
export const PARKING_GUARD_PREFIX = '~parking.';

/**
 * Orders the actions (`orderActions`) and, while they wait on each other in
 * a cycle, or a rule moves while an endpoint switches policy lists (the
 * move would be in neither phase), splits a rule that moves its range.
 *
 * An allow (two rules swapping CIDRs, a rule moving off a CIDR that a new
 * deny must hold before the move widens anything, a move across a switch)
 * is split in two PATCHes, first to a parking spot, then to its target,
 * under a temporary deny rule on the spot that is created first and deleted
 * last. The ordering rules then see the parked rule like any other: the spot
 * is closed while it is there.
 *
 * A deny that moves across a switch cannot be parked: leaving its range
 * widens (late) and reaching the new one narrows (early), the wrong way
 * round for two PATCHes. Its target is held instead by a temporary deny on
 * the smallest free CIDR around it, created before the switch and deleted
 * after the move, so the move itself only widens and goes late.
 */
export function orderActionsParkingMoves(state: PlanState): void {
  // Non-empty ones only (an action missing here is restored with none): most are drafted with none,
  // and copying 100,000 empty sets was a cost of its own (issue 18).
  const initial = new Map<DraftAction, Set<string>>();
  for (const action of state.actions)
    if (action.dependsOn.size > 0) initial.set(action, new Set(action.dependsOn));
  const errorCount = state.errors.length;
  const parked = new Set<string>();
  for (;;) {
    orderActions(state);
    // The drafts themselves: a { key, dependsOn } copy of each of 100,000 was promoted garbage (issue 18).
    const order = topologicalOrder(state.actions);
    const found = moveAcrossPolicySwitch(state);
    const straddling = found !== undefined && !parked.has(found.change) ? found : undefined;
    if (order.ok && straddling === undefined) return;
    let move: DraftAction | undefined;
    if (straddling?.access === 'deny') move = straddling;
    else {
      const inCycle = new Set(order.ok ? [straddling?.key] : order.cycle);
      // Only an allow is worth parking: leaving its old range narrows (early),
      // reaching the new one widens (late). A parked deny would still have to
      // leave before it arrives.
      const moves = state.actions.filter(
        (action) => inCycle.has(action.key) && action.movedFrom !== undefined && !parked.has(action.change),
      );
      // With no allow to park (two denies trading ranges), a deny's target is
      // held by a temporary deny: its move then narrows nothing and only
      // waits for what narrows the range it leaves.
      move =
        moves.find((action) => action.access === 'allow') ??
        (order.ok ? undefined : moves.find((action) => action.access === 'deny'));
    }
    if (move !== undefined) parked.add(move.change);
    const added =
      move === undefined ? undefined : move.access === 'deny' ? guardTarget(state, move) : park(state, move);
    if (move === undefined || added === undefined) {
      // A cycle is reported with its members when the plan is assembled; a
      // move left straddling a switch would order fine and widen: refuse it.
      if (order.ok && straddling !== undefined) refuseStraddling(state, straddling);
      return;
    }
    // Order again from the dependencies the actions were drafted with.
    const moved = move;
    for (const [action, dependsOn] of added)
      initial.set(action, action.key === moved.key ? new Set(initial.get(moved)) : dependsOn);
    state.errors.length = errorCount;
    for (const action of state.actions) {
      action.dependsOn = NO_DEPENDENCIES;
      for (const key of initial.get(action) ?? []) addDependency(action, key);
    }
  }
}

function refuseStraddling(state: PlanState, move: DraftAction): void {
  state.errors.push({
    code: 'dependency_cycle',
    message: `${move.change} moves its range while an endpoint switches IP policy lists, and no temporary deny or parking address is free to split the move: apply the rule change and the endpoint change in two steps`,
    ...(move.source ? { source: move.source } : {}),
  });
}

/** What a PATCH that moves an access rule changes: its kind, live object, decision, body and the unique-key field it moves. */
interface MovedRule {
  readonly kind: Kind;
  readonly object: NonNullable<ReturnType<PlanState['liveById']['get']>>;
  readonly decision: NonNullable<Kind['accessDecision']> & {
    readonly range: NonNullable<NonNullable<Kind['accessDecision']>['range']>;
  };
  readonly body: Record<string, unknown>;
  readonly field: string;
}

function movedRule(state: PlanState, move: DraftAction): MovedRule | undefined {
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
  return { kind, object, decision: { ...decision, range: decision.range }, body, field };
}

/** Splits `move` in place; returns the new actions with their own dependencies, or undefined when no spot is free. */
function park(state: PlanState, move: DraftAction): Map<DraftAction, Set<string>> | undefined {
  const moved = movedRule(state, move);
  if (moved === undefined) return undefined;
  const { kind, object, decision, body, field } = moved;
  const spotRange = freeSpot(state, kind, decision.range, field);
  if (spotRange === undefined) return undefined;
  const { guard, spot } = spotRange;
  const keyOf = (spec: Record<string, unknown>): string | undefined => uniqueKeyValue(kind, spec);
  const base = Object.fromEntries((kind.uniqueKey ?? []).map((name) => [name, object.spec[name]]));
  const spotSpec = { ...base, [field]: spot.cidr, [decision.field]: object.spec[decision.field] };
  const guardSpec = { ...base, [field]: guard.cidr, [decision.field]: decision.deny };
  const added = new Map<DraftAction, Set<string>>();

  const toSpot: DraftAction = {
    ...move,
    request: kind.updateRequest(object.id, { ...body, [field]: spot.cidr }),
    ...defined('takes', keyOf(spotSpec)),
    range: spot.range,
    dependsOn: NO_DEPENDENCIES,
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
    ...defined('takes', takenKey(state, move)),
    ...defined('frees', keyOf(spotSpec)),
    ...defined('access', move.access),
    ...defined('range', move.range),
    movedFrom: spot.range,
    unparks: move.key,
  });
  addDependency(fromSpot, toSpot.key);
  added.set(toSpot, new Set());
  added.set(fromSpot, new Set(fromSpot.dependsOn));
  const actions = [toSpot, fromSpot];

  // A parked deny narrows the spot, nothing to guard; a parked allow opens it unless a deny holds it.
  if (move.access === 'allow') {
    const [guardCreate, guardDelete] = temporaryDeny(state, kind, move, guardSpec, guard.range);
    addDependency(guardDelete, fromSpot.key);
    added.set(guardCreate, new Set());
    added.set(guardDelete, new Set(guardDelete.dependsOn));
    actions.unshift(guardCreate);
    actions.push(guardDelete);
  }
  replaceAction(state, move, actions);
  return added;
}

/**
 * Holds the target of a deny `move` under temporary denies in the same IP
 * policy: one on the smallest free CIDR around it, or, for a target that
 * has none (0.0.0.0/0, ::/0), one on each of its halves. They are created
 * first and deleted once the move has landed. Returns the new actions with
 * their own dependencies, or undefined when the target is unknown or no
 * cover is free.
 */
function guardTarget(state: PlanState, move: DraftAction): Map<DraftAction, Set<string>> | undefined {
  const moved = movedRule(state, move);
  if (moved === undefined) return undefined;
  const { kind, object, decision, body, field } = moved;
  const target = body[field];
  if (typeof target !== 'string') return undefined;
  const rangeOf = decision.range;
  const base = Object.fromEntries((kind.uniqueKey ?? []).map((name) => [name, object.spec[name]]));
  const held = heldKeys(state, kind);
  const guardOf = (cidr: string): { spec: Record<string, unknown>; range: AddressRange } | undefined => {
    const spec = { ...base, [field]: cidr, [decision.field]: decision.deny };
    const key = uniqueKeyValue(kind, spec);
    const range = rangeOf(spec);
    return key === undefined || range === undefined || held.has(key) ? undefined : { spec, range };
  };
  // Each piece of a cover is held by temporary denies a killed apply left
  // (pruned after the move) or by a new one. The target itself can only be
  // held by leftovers: the move takes its key.
  type Piece =
    | { readonly prunes: DraftAction[] }
    | { readonly guard: NonNullable<ReturnType<typeof guardOf>> };
  const pieceOf = (cidr: string): Piece | undefined => {
    const range = rangeOf({ ...base, [field]: cidr });
    const prunes = range === undefined ? undefined : leftoverGuards(state, kind, base, field, range);
    if (prunes !== undefined) return { prunes };
    const guard = guardOf(cidr);
    return guard === undefined ? undefined : { guard };
  };
  const covers = [[target], ...enclosingCidrs(target).map((cidr) => [cidr]), halvesOf(target)];
  const pieces = covers
    .map((cidrs) => cidrs.map(pieceOf))
    .find((found) => found.length > 0 && found.every((piece) => piece !== undefined));
  if (pieces === undefined) return undefined;
  const added = new Map<DraftAction, Set<string>>();
  const creates: DraftAction[] = [];
  const deletes: DraftAction[] = [];
  const prunes: DraftAction[] = [];
  for (const piece of pieces) {
    if (piece === undefined) return undefined;
    if ('prunes' in piece) {
      prunes.push(...piece.prunes);
      continue;
    }
    const suffix = creates.length === 0 ? '' : `~${creates.length + 1}`;
    const [guardCreate, guardDelete] = temporaryDeny(
      state,
      kind,
      move,
      piece.guard.spec,
      piece.guard.range,
      suffix,
    );
    creates.push(guardCreate);
    deletes.push(guardDelete);
  }
  const guarded: DraftAction = { ...move, guardedBy: creates[0]?.key ?? prunes[0]?.key ?? move.key };
  for (const guardCreate of creates) added.set(guardCreate, new Set());
  added.set(guarded, new Set());
  for (const guardDelete of deletes) {
    addDependency(guardDelete, guarded.key);
    added.set(guardDelete, new Set(guardDelete.dependsOn));
  }
  // A leftover's prune narrows nothing and widens its range: it waits for the move like a new guard's delete.
  for (const prune of prunes) {
    addDependency(prune, guarded.key);
    added.set(prune, new Set(prune.dependsOn));
  }
  replaceAction(state, move, [...creates, guarded, ...deletes]);
  return added;
}

/**
 * The prunes of temporary denies a killed apply left (owned, `~parking.`
 * names) in the rule's policy that together cover `target`, or undefined
 * when they do not.
 */
function leftoverGuards(
  state: PlanState,
  kind: Kind,
  base: Readonly<Record<string, unknown>>,
  field: string,
  target: AddressRange,
): DraftAction[] | undefined {
  const decision = kind.accessDecision;
  if (decision?.range === undefined) return undefined;
  const found: { prune: DraftAction; range: AddressRange }[] = [];
  for (const object of state.live.objects[kind.name] ?? []) {
    const { marker, spec } = object;
    if (marker?.owner !== state.options.owner || !marker.name.startsWith(PARKING_GUARD_PREFIX)) continue;
    if (spec[decision.field] !== decision.deny) continue;
    if (Object.entries(base).some(([name, value]) => name !== field && spec[name] !== value)) continue;
    const range = decision.range(spec);
    const prune = state.actions.find((action) => action.op === 'delete' && action.objectId === object.id);
    if (range === undefined || prune === undefined || range.family !== target.family) continue;
    found.push({ prune, range });
  }
  found.sort((a, b) => (a.range.first < b.range.first ? -1 : a.range.first > b.range.first ? 1 : 0));
  let next = target.first;
  const covering: DraftAction[] = [];
  for (const { prune, range } of found) {
    if (range.last < next) continue;
    if (range.first > next) break;
    covering.push(prune);
    next = range.last + 1n;
    if (next > target.last) return covering;
  }
  return undefined;
}

/** The CIDRs around `cidr`, smallest first: one bit shorter each, down to /0. */
function enclosingCidrs(cidr: string): string[] {
  if (!ipaddr.isValidCIDR(cidr)) return [];
  const [address, prefix] = ipaddr.parseCIDR(cidr);
  const family = address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
  const around: string[] = [];
  for (let length = prefix - 1; length >= 0; length -= 1)
    around.push(`${family.networkAddressFromCIDR(`${address.toString()}/${length}`).toString()}/${length}`);
  return around;
}

/** The two CIDRs one bit longer that together cover `cidr`; none for a single address. */
function halvesOf(cidr: string): string[] {
  if (!ipaddr.isValidCIDR(cidr)) return [];
  const [address, prefix] = ipaddr.parseCIDR(cidr);
  const bytes = address.toByteArray();
  const bits = bytes.length * 8;
  if (prefix >= bits) return [];
  let first = 0n;
  for (const byte of bytes) first = (first << 8n) | BigInt(byte);
  first &= ~((1n << BigInt(bits - prefix)) - 1n);
  const second = first | (1n << BigInt(bits - prefix - 1));
  return [first, second].map((number) => {
    const out: number[] = [];
    for (let index = bytes.length - 1; index >= 0; index -= 1)
      out[index] = Number((number >> BigInt((bytes.length - 1 - index) * 8)) & 0xffn);
    return `${ipaddr.fromByteArray(out).toString()}/${prefix + 1}`;
  });
}

/** Uniqueness keys of `kind` that the account holds or an action takes or frees. */
function heldKeys(state: PlanState, kind: Kind): Set<string> {
  const held = new Set<string>();
  for (const object of state.live.objects[kind.name] ?? []) {
    const key = uniqueKeyValue(kind, object.spec);
    if (key !== undefined) held.add(key);
  }
  for (const action of state.actions) {
    const takes = takenKey(state, action);
    if (takes !== undefined) held.add(takes);
    if (action.frees !== undefined) held.add(action.frees);
  }
  return held;
}

/**
 * A temporary deny rule for `move`'s change, marked `~parking.NAME` so that
 * a killed apply's leftover is pruned by the next plan: its create, and its
 * delete, which waits for the create.
 */
function temporaryDeny(
  state: PlanState,
  kind: Kind,
  move: DraftAction,
  spec: Record<string, unknown>,
  range: AddressRange,
  suffix = '',
): [DraftAction, DraftAction] {
  const keyOf = (value: Record<string, unknown>): string | undefined => uniqueKeyValue(kind, value);
  const guardName = `${PARKING_GUARD_PREFIX}${move.name}${suffix}`;
  const marker = { owner: state.options.owner, name: guardName };
  const createKey = `create:${move.change}#parking-guard${suffix}`;
  const guardCreate = draftAction({
    key: createKey,
    op: 'create',
    kind: kind.name,
    name: move.name,
    change: move.change,
    request: kind.createRequest(spec, encodeMetadata(undefined, marker)),
    secrets: new Set(),
    marker,
    ...(move.source ? { source: move.source } : {}),
    ...defined('takes', keyOf(spec)),
    access: 'deny',
    range,
  });
  const guardDelete = draftAction({
    key: `delete:${move.change}#parking-guard${suffix}`,
    op: 'delete',
    kind: kind.name,
    name: move.name,
    change: move.change,
    request: kind.deleteRequest(pendingPathSegment(createKey)),
    secrets: new Set(),
    ...(move.source ? { source: move.source } : {}),
    ...defined('frees', keyOf(spec)),
    access: 'deny',
    range,
  });
  addDependency(guardDelete, createKey);
  return [guardCreate, guardDelete];
}

/** Puts `actions` where `move` was, in the plan and in its change. */
function replaceAction(state: PlanState, move: DraftAction, actions: readonly DraftAction[]): void {
  state.actions.splice(state.actions.indexOf(move), 1, ...actions);
  const draft = state.changes.find((change) => change.address === move.change);
  if (draft !== undefined) {
    const position = draft.actionKeys.indexOf(move.key);
    draft.actionKeys.splice(position, 1, ...actions.map((action) => action.key));
  }
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
  for (const { guard, spot } of kind.accessDecision?.parkingSpots ?? []) {
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
