import ipaddr from 'ipaddr.js';
import type { AccessDecision, AddressRange, Kind } from '../../kinds/kind.js';
import type { LiveObject } from '../../kinds/live-state.js';
import { encodeMetadata } from '../../kinds/ownership-marker.js';
import { type DraftAction, type DraftChange, draftAction, type PlainDraft } from '../draft-action.js';
import type { Drafts } from '../drafts.js';
import { EntryCreate } from '../entry-create.js';
import { pendingPathSegment } from '../pending-id.js';
import type { PlanError } from '../plan.js';
import type { PlanInputs } from '../plan-inputs.js';
import type { KeyNumber } from '../planner-options.js';
import { topologicalOrder } from '../topological-order.js';
import { actsOn, type ItemTakeover, takesItemFor } from '../unique-items.js';
import type { Dependencies } from './decide-dependencies.js';
import { DependencyEdges, type Edge } from './dependency-edges.js';
import type { ActionFacts, OrderingFacts } from './ordering-facts.js';
import { moveAcrossPolicySwitch } from './switch-policies-between-phases.js';

/** Marker names of temporary rules start with `~`, which no manifest name can (see the manifest schema). */
export const PARKING_GUARD_PREFIX = '~parking.';

/** The drafts with their facts and dependencies: what the ordering phases made of them. */
export interface Parked {
  readonly drafts: Drafts;
  readonly facts: OrderingFacts;
  readonly dependencies: Dependencies;
}

/**
 * What parking carries from one split to the next: the changes already
 * parked (each rule moves at most once) and the edges the splits brought.
 */
export interface Parking {
  readonly parked: ReadonlySet<string>;
  readonly edges: DependencyEdges;
}

/** Parking before its first split. */
export const NOTHING_PARKED: Parking = { parked: new Set(), edges: new DependencyEdges() };

/**
 * One step of parking: the drafts as they are (`ordered`, with the error of
 * a move it had to refuse), or a split whose new drafts the phases before
 * it must order again.
 */
export type ParkingStep =
  | { readonly ordered: Parked; readonly split?: undefined }
  | { readonly split: { readonly drafts: Drafts; readonly parking: Parking } };

/** The drafts as a split left them, with the edges the split moves brought. */
interface Split {
  readonly drafts: Drafts;
  readonly edges: DependencyEdges;
}

/**
 * The fifth phase, ordering rule 8 of docs/plan.md, one move at a time.
 * While the actions wait on each other in a cycle, or a rule moves while an
 * endpoint switches policy lists (the move would be in neither phase of
 * rule 5), it splits a rule that moves its range; the planner then works
 * out the new drafts' facts and dependencies as it did the first time and
 * asks again. Each rule moves at most once.
 *
 * An allow (two rules swapping CIDRs, a rule moving off a CIDR that a new
 * deny must hold before the move widens anything, a move across a switch)
 * is split in two PATCHes, first to a parking spot (AccessDecision.
 * parkingSpots), then to its target, under a temporary deny rule on the spot
 * that is created first and deleted last. The ordering rules then see the
 * parked rule like any other: the spot is closed while it is there.
 *
 * A deny that moves across a switch cannot be parked: leaving its range
 * widens (late) and reaching the new one narrows (early), the wrong way
 * round for two PATCHes. Its target is held instead by a temporary deny on
 * the smallest free CIDR around it, created before the switch and deleted
 * after the move, so the move itself only widens and goes late.
 */
export function parkOneMove(current: Parked, inputs: PlanInputs, parking: Parking): ParkingStep {
  const { edges } = current.dependencies;
  const { parked } = parking;
  const order = topologicalOrder(current.drafts.actions, (action) => edges.of(action));
  const found = moveAcrossPolicySwitch(current.facts);
  const straddling = found !== undefined && !parked.has(found.action.change) ? found : undefined;
  if (order.ok && straddling === undefined) return { ordered: current };
  let move: ActionFacts | undefined;
  if (straddling?.access === 'deny') move = straddling;
  else {
    const inCycle = new Set(order.ok ? [straddling?.action.key] : order.cycle);
    // Only an allow is worth parking: leaving its old range narrows (early),
    // reaching the new one widens (late). A parked deny would still have to
    // leave before it arrives.
    const moves = current.facts.list.filter(
      (of) => inCycle.has(of.action.key) && of.movedFrom !== undefined && !parked.has(of.action.change),
    );
    // With no allow to park (two denies trading ranges), a deny's target is
    // held by a temporary deny: its move then narrows nothing and only
    // waits for what narrows the range it leaves.
    move =
      moves.find((of) => of.access === 'allow') ??
      (order.ok ? undefined : moves.find((of) => of.access === 'deny'));
  }
  const moved = move === undefined ? undefined : movedRule(inputs, move);
  const split =
    moved === undefined
      ? undefined
      : moved.move.access === 'deny'
        ? guardTarget(current, parking.edges, moved, inputs)
        : park(current, parking.edges, moved, inputs);
  if (split === undefined || move === undefined) {
    // A cycle is reported with its members when the plan is assembled; a
    // move left straddling a switch would order fine and widen: refuse it.
    if (!order.ok || straddling === undefined) return { ordered: current };
    return { ordered: withError(current, straddlingRefused(straddling.action)) };
  }
  return {
    split: {
      drafts: split.drafts,
      parking: { parked: new Set([...parked, move.action.change]), edges: split.edges },
    },
  };
}

function withError(parked: Parked, error: PlanError): Parked {
  return {
    ...parked,
    dependencies: { ...parked.dependencies, errors: [...parked.dependencies.errors, error] },
  };
}

function straddlingRefused(move: DraftAction): PlanError {
  return {
    code: 'dependency_cycle',
    message: `${move.change} moves its range while an endpoint switches IP policy lists, and no temporary deny or parking address is free to split the move: apply the rule change and the endpoint change in two steps`,
    ...(move.source ? { source: move.source } : {}),
  };
}

/** What a PATCH that moves an access rule changes: its kind, live object, decision, body and the unique-key field it moves. */
interface MovedRule {
  readonly move: ActionFacts & { readonly action: PlainDraft };
  readonly kind: Kind;
  readonly object: LiveObject;
  readonly decision: AccessDecision & { readonly range: NonNullable<AccessDecision['range']> };
  readonly body: Record<string, unknown>;
  readonly field: string;
}

function movedRule(inputs: PlanInputs, move: ActionFacts): MovedRule | undefined {
  const { action } = move;
  if (action instanceof EntryCreate) return undefined;
  const kind = inputs.kindsByName.get(action.kind);
  const object = action.objectId === undefined ? undefined : inputs.liveById.get(action.objectId);
  const decision = kind?.accessDecision;
  const body = action.request.body as Record<string, unknown> | undefined;
  if (kind === undefined || object === undefined || decision?.range === undefined || body === undefined)
    return undefined;
  const field = (kind.uniqueKey ?? []).find(
    (name) => body[name] !== undefined && body[name] !== object.spec[name],
  );
  if (field === undefined) return undefined;
  return {
    move: { ...move, action },
    kind,
    object,
    decision: { ...decision, range: decision.range },
    body,
    field,
  };
}

/** Splits an allow's move in two PATCHes by a parking spot; undefined when no spot is free. */
function park(
  current: Parked,
  parkingEdges: DependencyEdges,
  moved: MovedRule,
  inputs: PlanInputs,
): Split | undefined {
  const { move, kind, object, decision, body, field } = moved;
  const spotRange = freeSpot(inputs, current.facts, kind, decision, field);
  if (spotRange === undefined) return undefined;
  const { guard, spot } = spotRange;
  const base = Object.fromEntries((kind.uniqueKey ?? []).map((name) => [name, object.spec[name]]));
  const guardSpec = { ...base, [field]: guard.cidr, [decision.field]: decision.deny };
  const atSpot = { ...object.spec, [field]: spot.cidr };

  const spotKey = inputs.keys.of(kind, atSpot);
  const toSpot: PlainDraft = {
    ...move.action,
    request: kind.updateRequest(object.id, { ...body, [field]: spot.cidr }),
    after: atSpot,
    takesKey: spotKey,
  };
  const fromSpot = draftAction({
    key: `${move.action.key}#from-parking`,
    op: 'update',
    kind: kind.name,
    name: move.action.name,
    change: move.action.change,
    request: kind.updateRequest(object.id, { [field]: body[field] }),
    secrets: new Set(),
    objectId: object.id,
    source: move.action.source,
    before: atSpot,
    after: move.action.after,
    parking: { unparks: move.action.key },
    freesKey: spotKey,
    takesKey: move.action.takesKey,
  });
  const edges: Edge[] = [{ waiter: fromSpot, key: toSpot.key }];
  const actions: PlainDraft[] = [toSpot, fromSpot];

  // A parked deny narrows the spot, nothing to guard; a parked allow opens it unless a deny holds it.
  if (move.access === 'allow') {
    const [guardCreate, guardDelete] = temporaryDeny(inputs, kind, move.action, guardSpec);
    edges.push({ waiter: guardDelete, key: fromSpot.key });
    actions.unshift(guardCreate);
    actions.push(guardDelete);
  }
  return {
    drafts: replaceAction(current.drafts, move.action, actions),
    edges: new DependencyEdges(parkingEdges, [edges]),
  };
}

/**
 * Holds the target of a deny's move under temporary denies in the same IP
 * policy: one on the smallest free CIDR around it, or, for a target that
 * has none (0.0.0.0/0, ::/0), one on each of its halves. They are created
 * first and deleted once the move has landed. Undefined when the target is
 * unknown or no cover is free.
 */
function guardTarget(
  current: Parked,
  parkingEdges: DependencyEdges,
  moved: MovedRule,
  inputs: PlanInputs,
): Split | undefined {
  const { move, kind, object, decision, body, field } = moved;
  const target = body[field];
  if (typeof target !== 'string') return undefined;
  const { actions } = current.drafts;
  const rangeOf = decision.range;
  const base = Object.fromEntries((kind.uniqueKey ?? []).map((name) => [name, object.spec[name]]));
  const held = heldKeys(inputs, current.facts, kind);
  const guardOf = (cidr: string): Record<string, unknown> | undefined => {
    const spec = { ...base, [field]: cidr, [decision.field]: decision.deny };
    const key = inputs.keys.of(kind, spec);
    const range = rangeOf(spec);
    return key === undefined || range === undefined || held.has(key) ? undefined : spec;
  };
  // Each piece of a cover is held by temporary denies a killed apply left
  // (pruned after the move) or by a new one. The target itself can only be
  // held by leftovers: the move takes its key.
  type Piece = { readonly prunes: DraftAction[] } | { readonly guard: Record<string, unknown> };
  const pieceOf = (cidr: string): Piece | undefined => {
    const range = rangeOf({ ...base, [field]: cidr });
    const prunes =
      range === undefined ? undefined : leftoverGuards(inputs, actions, kind, decision, base, field, range);
    if (prunes !== undefined) return { prunes };
    const guard = guardOf(cidr);
    return guard === undefined ? undefined : { guard };
  };
  const covers = [[target], ...enclosingCidrs(target).map((cidr) => [cidr]), halvesOf(target)];
  const pieces = covers
    .map((cidrs) => cidrs.map(pieceOf))
    .find((found) => found.length > 0 && found.every((piece) => piece !== undefined));
  if (pieces === undefined) return undefined;
  const creates: PlainDraft[] = [];
  const deletes: PlainDraft[] = [];
  const prunes: DraftAction[] = [];
  for (const piece of pieces) {
    if (piece === undefined) return undefined;
    if ('prunes' in piece) {
      prunes.push(...piece.prunes);
      continue;
    }
    const suffix = creates.length === 0 ? '' : `~${creates.length + 1}`;
    const [guardCreate, guardDelete] = temporaryDeny(inputs, kind, move.action, piece.guard, suffix);
    creates.push(guardCreate);
    deletes.push(guardDelete);
  }
  const guarded: PlainDraft = {
    ...move.action,
    parking: { guardedBy: creates[0]?.key ?? prunes[0]?.key ?? move.action.key },
  };
  const edges: Edge[] = deletes.map((guardDelete) => ({ waiter: guardDelete, key: guarded.key }));
  // A leftover's prune narrows nothing and widens its range: it waits for the move like a new
  // guard's delete, and keeps waiting for what it waits for now.
  for (const prune of prunes) {
    for (const key of current.dependencies.edges.of(prune)) edges.push({ waiter: prune, key });
    edges.push({ waiter: prune, key: guarded.key });
  }
  return {
    drafts: replaceAction(current.drafts, move.action, [...creates, guarded, ...deletes]),
    edges: new DependencyEdges(parkingEdges, [edges]),
  };
}

/**
 * The prunes of temporary denies a killed apply left (owned, `~parking.`
 * names) in the rule's policy that together cover `target`, or undefined
 * when they do not.
 */
function leftoverGuards(
  inputs: PlanInputs,
  actions: readonly DraftAction[],
  kind: Kind,
  decision: MovedRule['decision'],
  base: Readonly<Record<string, unknown>>,
  field: string,
  target: AddressRange,
): DraftAction[] | undefined {
  const found: { prune: DraftAction; range: AddressRange }[] = [];
  for (const object of inputs.live.objects[kind.name] ?? []) {
    const { marker, spec } = object;
    if (marker?.owner !== inputs.owner || !marker.name.startsWith(PARKING_GUARD_PREFIX)) continue;
    if (spec[decision.field] !== decision.deny) continue;
    if (Object.entries(base).some(([name, value]) => name !== field && spec[name] !== value)) continue;
    const range = decision.range(spec);
    const prune = actions.find((action) => action.op === 'delete' && action.objectId === object.id);
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
function heldKeys(inputs: PlanInputs, facts: OrderingFacts, kind: Kind): Set<KeyNumber> {
  const held = new Set<KeyNumber>();
  for (const object of inputs.live.objects[kind.name] ?? []) {
    const key = inputs.keys.ofLive(object);
    if (key !== undefined) held.add(key);
  }
  // A move frees a key, so the facts list who takes each.
  for (const key of facts.takers.keys()) held.add(key);
  for (const of of facts.list) if (of.frees !== undefined) held.add(of.frees);
  return held;
}

/**
 * A temporary deny rule for `move`'s change, marked `~parking.NAME` so that
 * a killed apply's leftover is pruned by the next plan: its create, and its
 * delete, whose path names the create (so rule 1 makes it wait for it).
 */
function temporaryDeny(
  inputs: PlanInputs,
  kind: Kind,
  move: PlainDraft,
  spec: Record<string, unknown>,
  suffix = '',
): [PlainDraft, PlainDraft] {
  const guardName = `${PARKING_GUARD_PREFIX}${move.name}${suffix}`;
  const marker = { owner: inputs.owner, name: guardName };
  const createKey = `create:${move.change}#parking-guard${suffix}`;
  const uniqueKey = inputs.keys.of(kind, spec);
  const guardCreate = draftAction({
    key: createKey,
    op: 'create',
    kind: kind.name,
    name: move.name,
    change: move.change,
    request: kind.createRequest(spec, encodeMetadata(undefined, marker)),
    secrets: new Set(),
    marker,
    source: move.source,
    after: spec,
    takesKey: uniqueKey,
  });
  const guardDelete = draftAction({
    key: `delete:${move.change}#parking-guard${suffix}`,
    op: 'delete',
    kind: kind.name,
    name: move.name,
    change: move.change,
    request: kind.deleteRequest(pendingPathSegment(createKey)),
    secrets: new Set(),
    source: move.source,
    before: spec,
    freesKey: uniqueKey,
  });
  return [guardCreate, guardDelete];
}

/** The drafts with `actions` where `move` was, in the plan and in its change. */
function replaceAction(drafts: Drafts, move: PlainDraft, actions: readonly PlainDraft[]): Drafts {
  const at = drafts.actions.indexOf(move);
  const keys = actions.map((action) => action.key);
  const old = drafts.changes.find((change) => change.address === move.change);
  let changes = drafts.changes;
  let protectedChanges = drafts.protectedChanges;
  if (old !== undefined) {
    const position = old.actionKeys.indexOf(move.key);
    const actionKeys = [...old.actionKeys];
    actionKeys.splice(position, 1, ...keys);
    const replaced: DraftChange = { ...old, actionKeys } as DraftChange;
    changes = drafts.changes.map((change) => (change === old ? replaced : change));
    if (protectedChanges.has(old))
      protectedChanges = new Set([...protectedChanges].map((change) => (change === old ? replaced : change)));
  }
  return {
    ...drafts,
    actions: [...drafts.actions.slice(0, at), ...actions, ...drafts.actions.slice(at + 1)],
    changes,
    protectedChanges,
    takeovers: drafts.takeovers.map((takeover) => splitInTakeover(takeover, move, actions)),
  };
}

/**
 * A takeover with `move` split into `actions` as unique-items.ts would have
 * found them: a taker's writes of its change but deletes, a release's writes
 * of the object.
 */
function splitInTakeover(
  takeover: ItemTakeover,
  move: PlainDraft,
  actions: readonly PlainDraft[],
): ItemTakeover {
  const split = (
    list: readonly DraftAction[],
    keep: (action: PlainDraft) => boolean,
  ): readonly DraftAction[] => {
    const at = list.indexOf(move);
    return at === -1 ? list : [...list.slice(0, at), ...actions.filter(keep), ...list.slice(at + 1)];
  };
  return {
    takers: split(takeover.takers, (action) => takesItemFor(action, move.change)),
    releases: split(takeover.releases, (action) => actsOn(action, move.objectId)),
  };
}

/** The first parking spot whose guard range overlaps no rule of the account or the plan. */
function freeSpot(
  inputs: PlanInputs,
  facts: OrderingFacts,
  kind: Kind,
  decision: MovedRule['decision'],
  field: string,
):
  | {
      readonly guard: { readonly cidr: string; readonly range: AddressRange };
      readonly spot: { readonly cidr: string; readonly range: AddressRange };
    }
  | undefined {
  const rangeOf = decision.range;
  const held: AddressRange[] = [];
  for (const object of inputs.live.objects[kind.name] ?? []) {
    const range = rangeOf(object.spec);
    if (range !== undefined) held.push(range);
  }
  for (const of of facts.list) {
    if (of.action.kind !== kind.name) continue;
    if (of.range !== undefined) held.push(of.range);
    if (of.movedFrom !== undefined) held.push(of.movedFrom);
  }
  for (const { guard, spot } of decision.parkingSpots ?? []) {
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
