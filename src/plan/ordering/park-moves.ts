import type { AccessDecision, AddressRange, Kind } from '../../kinds/kind.js';
import type { LiveObject } from '../../kinds/live-state.js';
import type { DraftAction, PlainDraft } from '../draft-action.js';
import type { Drafts } from '../drafts.js';
import { EntryCreate } from '../entry-create.js';
import type { PlanError } from '../plan.js';
import type { PlanInputs } from '../plan-inputs.js';
import type { KeyNumber } from '../planner-options.js';
import type { Dependencies } from './decide-dependencies.js';
import type { Edge } from './dependency-edges.js';
import type { ActionFacts, OrderingFacts } from './ordering-facts.js';

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
  readonly edges: readonly Edge[];
}

/** Parking before its first split. */
export const NOTHING_PARKED: Parking = { parked: new Set(), edges: [] };

/**
 * One step of parking: the drafts as they are (`ordered`, with the error of
 * a move it had to refuse), or the decision to split one move, whose drafts
 * drafting builds (parked-drafts.ts) and the phases before parking order
 * again.
 */
export type ParkingStep =
  | { readonly ordered: Parked; readonly decision?: undefined }
  | { readonly decision: ParkingDecision };

/**
 * How one move is split (ordering rule 8): the PATCH that moves a rule
 * becomes, in the drafts' order, the creates of the temporary denies
 * (`guards`), the move itself (parked on a spot: two PATCHes; its target
 * held: one), the deletes of the temporary denies. Parking names each new
 * action and what waits for what; drafting builds the requests.
 */
export interface ParkingDecision {
  readonly kind: Kind;
  /** The PATCH that moves a rule's range. */
  readonly move: PlainDraft;
  /** For an allow: the spot it is parked on on its way, under `guards`. */
  readonly spot: ParkingSpotTaken | undefined;
  /** For a deny: the create (or a leftover's prune) of the temporary deny holding its target. */
  readonly guardedBy: string | undefined;
  /** Temporary deny rules created before the move and deleted after it. */
  readonly guards: readonly TemporaryDeny[];
  /**
   * What waits for what besides what the ordering rules find: `waiter` is the
   * key of an action of this decision, or an action already drafted (the
   * prune of a temporary deny a killed apply left).
   */
  readonly waits: readonly { readonly waiter: string | DraftAction; readonly key: string }[];
}

/** The spot a parked rule waits on: its key field's value there, and the object's spec and key while it waits. */
export interface ParkingSpotTaken {
  readonly objectId: string;
  /** The unique-key field the rule moves (its CIDR). */
  readonly field: string;
  readonly value: string;
  /** The object's spec while on the spot. */
  readonly spec: Readonly<Record<string, unknown>>;
  readonly uniqueKey: KeyNumber | undefined;
  /** The key of the PATCH from the spot to the target; the move's own key PATCHes it to the spot. */
  readonly fromSpotKey: string;
}

/**
 * A temporary deny rule for a move's change, marked `~parking.NAME` so that
 * a killed apply's leftover is pruned by the next plan; its delete's path
 * names its create (so rule 1 makes it wait for it).
 */
export interface TemporaryDeny {
  readonly spec: Readonly<Record<string, unknown>>;
  readonly uniqueKey: KeyNumber | undefined;
  /** Its marker's name. */
  readonly name: string;
  readonly createKey: string;
  readonly deleteKey: string;
}

/**
 * The fifth phase, ordering rule 8 of docs/plan.md, one move at a time.
 * While the actions wait on each other in a cycle, or a rule moves while an
 * endpoint switches policy lists (the move would be in neither phase of
 * rule 5), it decides how to split a rule that moves its range; drafting
 * builds the split's actions, and the planner works out the new drafts'
 * facts and dependencies as it did the first time and asks again. Each rule
 * moves at most once.
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
 * round for two PATCHes. Its target is held instead by temporary denies
 * (AccessDecision.guardCovers: for a CIDR, the smallest free one around it),
 * created before the switch and deleted after the move, so the move itself
 * only widens and goes late.
 */
export function parkOneMove(current: Parked, inputs: PlanInputs, parked: ReadonlySet<string>): ParkingStep {
  const { cycle, straddling: found } = current.dependencies;
  const straddling = found !== undefined && !parked.has(found.action.change) ? found : undefined;
  if (cycle === undefined && straddling === undefined) return { ordered: current };
  let move: ActionFacts | undefined;
  if (straddling?.access === 'deny') move = straddling;
  else {
    const inCycle = new Set(cycle ?? [straddling?.action.key]);
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
      (cycle === undefined ? undefined : moves.find((of) => of.access === 'deny'));
  }
  const moved = move === undefined ? undefined : movedRule(inputs, move);
  const decision =
    moved === undefined
      ? undefined
      : moved.move.access === 'deny'
        ? guardTarget(current, moved, inputs)
        : park(current.facts, moved, inputs);
  if (decision !== undefined) return { decision };
  // A cycle is reported with its members when the plan is assembled; a
  // move left straddling a switch would order fine and widen: refuse it.
  if (cycle !== undefined || straddling === undefined) return { ordered: current };
  return { ordered: withError(current, straddlingRefused(straddling.action)) };
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

/** Parks an allow's move on a spot, in two PATCHes under a temporary deny; undefined when no spot is free. */
function park(facts: OrderingFacts, moved: MovedRule, inputs: PlanInputs): ParkingDecision | undefined {
  const { move, kind, object, decision, field } = moved;
  const spotRange = freeSpot(inputs, facts, kind, decision, field);
  if (spotRange === undefined) return undefined;
  const { guard, spot } = spotRange;
  const action = move.action;
  const atSpot = { ...object.spec, [field]: spot.cidr };
  const fromSpotKey = `${action.key}#from-parking`;
  const waits: { waiter: string; key: string }[] = [{ waiter: fromSpotKey, key: action.key }];
  const guards: TemporaryDeny[] = [];
  // A parked deny narrows the spot, nothing to guard; a parked allow opens it unless a deny holds it.
  if (move.access === 'allow') {
    const guardSpec = { ...keyFieldsOf(kind, object), [field]: guard.cidr, [decision.field]: decision.deny };
    const temporary = temporaryDeny(inputs, kind, action, guardSpec);
    guards.push(temporary);
    waits.push({ waiter: temporary.deleteKey, key: fromSpotKey });
  }
  return {
    kind,
    move: action,
    spot: {
      objectId: object.id,
      field,
      value: spot.cidr,
      spec: atSpot,
      uniqueKey: inputs.keys.numbering.numberOf(kind, atSpot),
      fromSpotKey,
    },
    guardedBy: undefined,
    guards,
    waits,
  };
}

/**
 * Holds the target of a deny's move under temporary denies in the same IP
 * policy: on the first cover of the target that the kind offers
 * (AccessDecision.guardCovers) whose every piece is free, or held by
 * temporary denies a killed apply left (pruned after the move). They are
 * created first and deleted once the move has landed. Undefined when the
 * target is unknown or no cover is free.
 */
function guardTarget(current: Parked, moved: MovedRule, inputs: PlanInputs): ParkingDecision | undefined {
  const { move, kind, object, decision, body, field } = moved;
  const target = body[field];
  if (typeof target !== 'string' || decision.guardCovers === undefined) return undefined;
  const { actions } = current.drafts;
  const rangeOf = decision.range;
  const base = keyFieldsOf(kind, object);
  const held = heldKeys(inputs, current.facts, kind);
  const guardOf = (value: string): Record<string, unknown> | undefined => {
    const spec = { ...base, [field]: value, [decision.field]: decision.deny };
    const key = inputs.keys.numbering.numberOf(kind, spec);
    const range = rangeOf(spec);
    return key === undefined || range === undefined || held.has(key) ? undefined : spec;
  };
  // Each piece of a cover is held by temporary denies a killed apply left
  // (pruned after the move) or by a new one. The target itself can only be
  // held by leftovers: the move takes its key.
  type Piece = { readonly prunes: DraftAction[] } | { readonly guard: Record<string, unknown> };
  const pieceOf = (value: string): Piece | undefined => {
    const range = rangeOf({ ...base, [field]: value });
    const prunes =
      range === undefined ? undefined : leftoverGuards(inputs, actions, kind, decision, base, field, range);
    if (prunes !== undefined) return { prunes };
    const guard = guardOf(value);
    return guard === undefined ? undefined : { guard };
  };
  const pieces = decision
    .guardCovers(target)
    .map((values) => values.map(pieceOf))
    .find((found) => found.length > 0 && found.every((piece) => piece !== undefined));
  if (pieces === undefined) return undefined;
  const guards: TemporaryDeny[] = [];
  const prunes: DraftAction[] = [];
  for (const piece of pieces) {
    if (piece === undefined) return undefined;
    if ('prunes' in piece) {
      prunes.push(...piece.prunes);
      continue;
    }
    const suffix = guards.length === 0 ? '' : `~${guards.length + 1}`;
    guards.push(temporaryDeny(inputs, kind, move.action, piece.guard, suffix));
  }
  const waits: { waiter: string | DraftAction; key: string }[] = guards.map((guard) => ({
    waiter: guard.deleteKey,
    key: move.action.key,
  }));
  // A leftover's prune narrows nothing and widens its range: it waits for the move like a new
  // guard's delete, and keeps waiting for what it waits for now.
  for (const prune of prunes) {
    for (const key of current.dependencies.edges.of(prune)) waits.push({ waiter: prune, key });
    waits.push({ waiter: prune, key: move.action.key });
  }
  return {
    kind,
    move: move.action,
    spot: undefined,
    guardedBy: guards[0]?.createKey ?? prunes[0]?.key ?? move.action.key,
    guards,
    waits,
  };
}

/** The values of the kind's unique-key fields in `object`'s spec: what a temporary deny shares with the moved rule. */
function keyFieldsOf(kind: Kind, object: LiveObject): Record<string, unknown> {
  return Object.fromEntries((kind.uniqueKey ?? []).map((name) => [name, object.spec[name]]));
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

/** Unique keys of `kind` that the account holds or an action takes or frees. */
function heldKeys(inputs: PlanInputs, facts: OrderingFacts, kind: Kind): Set<KeyNumber> {
  const held = new Set<KeyNumber>();
  for (const object of inputs.live.objects[kind.name] ?? []) {
    const key = inputs.keys.live.get(object);
    if (key !== undefined) held.add(key);
  }
  // A move frees a key, so the facts list who takes each.
  for (const key of facts.takers.keys()) held.add(key);
  for (const of of facts.list) if (of.frees !== undefined) held.add(of.frees);
  return held;
}

/** A temporary deny of `spec` for `move`'s change (see TemporaryDeny). */
function temporaryDeny(
  inputs: PlanInputs,
  kind: Kind,
  move: PlainDraft,
  spec: Readonly<Record<string, unknown>>,
  suffix = '',
): TemporaryDeny {
  return {
    spec,
    uniqueKey: inputs.keys.numbering.numberOf(kind, spec),
    name: `${PARKING_GUARD_PREFIX}${move.name}${suffix}`,
    createKey: `create:${move.change}#parking-guard${suffix}`,
    deleteKey: `delete:${move.change}#parking-guard${suffix}`,
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
