import type { AddressRange, Kind, ModuleRule } from '../../kinds/kind.js';
import type { DraftAction } from '../draft-action.js';
import type { Drafts } from '../drafts.js';
import { EntryCreate } from '../entry-create.js';
import type { PlanInputs } from '../plan-inputs.js';
import type { KeyNumber } from '../planner-options.js';

/**
 * What the ordering rules know of one drafted action: worked out from the
 * draft (what it does to its object) and its kind's hooks, never written by
 * a rule.
 */
export interface ActionFacts {
  readonly action: DraftAction;
  /** The live object it changes; absent for creates. */
  readonly objectId: string | undefined;
  /** The unique key it takes (a create, an update that moves its key), as its draft carries it. */
  readonly takes: KeyNumber | undefined;
  /** The unique key it frees (a delete, an update that moves its key), as its draft carries it. */
  readonly frees: KeyNumber | undefined;
  /** allow or deny, for kinds with an access decision. */
  readonly access: 'allow' | 'deny' | undefined;
  /** The addresses an access rule covers; absent when unknown, and then it overlaps every rule. */
  readonly range: AddressRange | undefined;
  /** For an update that moves an access rule: the range it leaves (`range` is where it arrives). */
  readonly movedFrom: AddressRange | undefined;
  /**
   * The key of the PATCH that parked this rule (ordering rule 8): this one
   * moves it on, so what it narrows (the spot) undoes what that one widened,
   * and it is not waited for by it.
   */
  readonly unparks: string | undefined;
  /**
   * The key of the create of a temporary deny that covers where this deny
   * rule moves (rule 8): that one narrows the target early, so this move only
   * widens, and belongs to the late phase.
   */
  readonly guardedBy: string | undefined;
  /** For a write or removal of a guard module (rule 6): whether it closes the edge to clients or opens it. */
  readonly guard: GuardFact | undefined;
  /** A module write that switches an endpoint from one list of IP policies to another (rule 5). */
  readonly switchesPolicies: boolean;
}

/** What a guard module's action does (ModuleRule.guard). */
export interface GuardFact {
  readonly effect: 'closes' | 'opens';
  readonly swapsAtOnce: boolean;
}

/** Facts by drafted action, in the drafts' order: `list[i]` is of `actions[i]`. */
export interface OrderingFacts {
  readonly list: readonly ActionFacts[];
  readonly kindsByName: PlanInputs['kindsByName'];
  /**
   * The actions taking each uniqueness-key value, in the drafts' order:
   * worked out only when some action frees a key or a replace is drafted
   * (rules 3 and 7, and parking, ask), empty otherwise: of 100,000 creates
   * that free nothing, none is asked.
   */
  readonly takers: ReadonlyMap<KeyNumber, readonly ActionFacts[]>;
}

/** The third phase: the ordering facts of every drafted action. */
export function orderingFactsOf(drafts: Drafts, inputs: PlanInputs): OrderingFacts {
  const { actions } = drafts;
  const list = new Array<ActionFacts>(actions.length);
  for (let at = 0; at < actions.length; at += 1)
    list[at] = factsOf(actions[at] as DraftAction, inputs.kindsByName.get((actions[at] as DraftAction).kind));
  const asked = drafts.replacements.size > 0 || list.some((of) => of.frees !== undefined);
  return { list, kindsByName: inputs.kindsByName, takers: asked ? keyTakers(list) : NO_TAKERS };
}

function factsOf(action: DraftAction, kind: Kind | undefined): ActionFacts {
  if (action instanceof EntryCreate) return entryCreateFacts(action, kind);
  const { before, after } = action;
  let keys: KeyFacts = {};
  if (kind !== undefined && action.module === undefined) {
    if (action.op === 'create' && after !== undefined) keys = takingFacts(kind, after, action);
    else if (action.op === 'delete' && before !== undefined)
      keys = withKey(accessFacts(kind, before), 'frees', action.freesKey);
    else if ((action.op === 'update' || action.op === 'adopt') && before !== undefined && after !== undefined)
      keys = keyMove(kind, before, after, action);
  }
  const module = action.module === undefined ? undefined : moduleRuleOf(kind, action.module);
  return facts(action, module, keys);
}

/** The key and access facts of a spec. */
type KeyFacts = Partial<Pick<ActionFacts, 'takes' | 'frees' | 'access' | 'range' | 'movedFrom'>>;

function facts(action: DraftAction, module: ModuleRule | undefined, keys: KeyFacts): ActionFacts {
  const plain = action instanceof EntryCreate ? undefined : action;
  const parking = plain?.parking;
  return {
    action,
    objectId: plain?.objectId,
    takes: keys.takes,
    frees: keys.frees,
    access: keys.access,
    range: keys.range,
    movedFrom: keys.movedFrom,
    unparks: parking !== undefined && 'unparks' in parking ? parking.unparks : undefined,
    guardedBy: parking !== undefined && 'guardedBy' in parking ? parking.guardedBy : undefined,
    guard: module?.guard === undefined || plain === undefined ? undefined : guardFact(plain, module),
    switchesPolicies:
      plain?.op === 'put-module' &&
      module?.namesIpPolicies === true &&
      plain.before !== null &&
      plain.before !== undefined,
  };
}

/**
 * What `facts` makes of an entry's create, without the objects in between:
 * 100,000 creates of a first apply are most of the actions of the plans
 * that take longest (docs/performance.md).
 */
function entryCreateFacts(action: EntryCreate, kind: Kind | undefined): ActionFacts {
  const { access, range } = kind === undefined ? NO_KEY_FACTS : accessFacts(kind, action.createdSpec());
  return {
    action,
    objectId: undefined,
    takes: kind === undefined ? undefined : action.takesKey,
    frees: undefined,
    access,
    range,
    movedFrom: undefined,
    unparks: undefined,
    guardedBy: undefined,
    guard: undefined,
    switchesPolicies: false,
  };
}

const NO_KEY_FACTS: KeyFacts = {};

/** A create's facts: its access decision and range, and the key its draft says it takes. */
function takingFacts(
  kind: Kind,
  spec: Readonly<Record<string, unknown>>,
  action: Pick<DraftAction, 'takesKey'>,
): KeyFacts {
  return withKey(accessFacts(kind, spec), 'takes', action.takesKey);
}

function withKey(facts: KeyFacts, role: 'takes' | 'frees', key: KeyNumber | undefined): KeyFacts {
  return key === undefined ? facts : { ...facts, [role]: key };
}

/** Access decision and address range of a spec (Kind.accessDecision). */
function accessFacts(kind: Kind, spec: Readonly<Record<string, unknown>>): KeyFacts {
  const decision = kind.accessDecision;
  if (decision === undefined) return {};
  const value = spec[decision.field];
  const access = value === decision.allow ? 'allow' : value === decision.deny ? 'deny' : undefined;
  if (access === undefined) return {};
  const range = decision.range?.(spec);
  return range === undefined ? { access } : { access, range };
}

/**
 * An update that changes the unique key (its draft frees one and takes
 * another) frees the old one and takes the new one; for an access rule it
 * also leaves one range and arrives at another, which the access ordering
 * treats like a delete and a create. An update that keeps its key has no
 * such facts.
 */
function keyMove(
  kind: Kind,
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  action: Pick<DraftAction, 'takesKey' | 'freesKey'>,
): KeyFacts {
  const { takesKey: takes, freesKey: frees } = action;
  if (takes === undefined || frees === undefined || takes === frees) return {};
  const { range: movedFrom } = accessFacts(kind, before);
  const { access, range } = accessFacts(kind, after);
  return {
    takes,
    frees,
    ...(access === undefined ? {} : { access }),
    ...(range === undefined ? {} : { range }),
    ...(movedFrom === undefined ? {} : { movedFrom }),
  };
}

function moduleRuleOf(kind: Kind | undefined, name: string): ModuleRule | undefined {
  return kind?.modules.find((module) => module.name === name);
}

/** Whether a guard module action closes its edge (or route) to clients or opens it. */
function guardFact(action: DraftAction & { readonly after: unknown }, module: ModuleRule): GuardFact {
  const value =
    action.op === 'delete-module' ? undefined : (action.after as { enabled?: unknown } | null | undefined);
  const opens = value === null || value === undefined || value.enabled === false;
  return { effect: opens ? 'opens' : 'closes', swapsAtOnce: module.guard?.swapsAtOnce === true };
}

/** The actions taking each unique key, in the drafts' order. */
function keyTakers(list: readonly ActionFacts[]): Map<KeyNumber, ActionFacts[]> {
  const takers = new Map<KeyNumber, ActionFacts[]>();
  for (const of of list) {
    if (of.takes === undefined) continue;
    // Pushed, not copied: a copy per taker was garbage at 100,000 creates.
    const taking = takers.get(of.takes);
    if (taking === undefined) takers.set(of.takes, [of]);
    else taking.push(of);
  }
  return takers;
}

/** The takers of a plan that frees no key and replaces nothing: shared, never written to. */
const NO_TAKERS: ReadonlyMap<KeyNumber, readonly ActionFacts[]> = new Map();

/** Whether an action belongs to a kind whose rules decide access. */
export function isAccessRule(facts: OrderingFacts, of: ActionFacts): boolean {
  return of.access !== undefined && facts.kindsByName.get(of.action.kind)?.accessDecision !== undefined;
}
