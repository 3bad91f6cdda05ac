import { inlineRecord } from '../inline-record.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';
import { type DesiredEntry, type DesiredState, entriesByKindAndName } from '../manifest/desired-state.js';
import type { SourceLocation } from '../manifest/source-location.js';
import { SharedFieldChanges } from './compare-fields.js';
import type { DraftAction, DraftChange } from './draft-action.js';
import { CreatesOfKind, type EntryCreate, EntryCreateChange } from './entry-create.js';
import { indexLive, type LiveById, type MarkedObjects } from './live-index.js';
import type { PendingId } from './pending-id.js';
import type { PlanError, ResourceChange } from './plan.js';
import type { PlanOptions } from './planner-options.js';

/**
 * Everything one planning run shares: the inputs and their indexes (read
 * only), and the plan drafted so far (filled in by each planning step).
 */
export interface PlanState {
  readonly desired: DesiredState;
  readonly live: LiveState;
  readonly options: PlanOptions;
  readonly kindsByName: ReadonlyMap<KindName, Kind>;
  readonly liveById: LiveById;
  /** Objects marked with our owner, by kind and name; the one a name matches comes first. */
  readonly managed: ReadonlyMap<KindName, ReadonlyMap<string, MarkedObjects>>;
  /**
   * Each entry's spec through its kind's `normalizeDesired`, computed once
   * (several steps compare it), held only where it differs from the entry's
   * spec: read it with `normalizedSpecOf`.
   */
  readonly normalizedSpecs: ReadonlyMap<DesiredEntry, Readonly<Record<string, unknown>>>;

  /**
   * `kind.name` → the ID the entry has (or will have) once applied, for
   * kinds that some field references (see `recordResolvedId`).
   */
  readonly resolvedIds: Map<string, string | PendingId>;
  /** Kinds named by some kind's reference fields: only their entries' IDs are looked up by name. */
  readonly referencedKinds: ReadonlySet<KindName>;
  /**
   * Live objects some entry stands for (claimed: never pruned, never counted
   * as unmanaged), each with its entry, to point errors about it at the manifest.
   */
  readonly entryByObject: Map<LiveObject, DesiredEntry>;
  /**
   * Live objects the plan read or changes besides those claimed (`entryByObject`): the
   * fingerprints of both go into the plan. Claims are not repeated here: at 100,000 entries
   * that was a second set of every ID, and its garbage, at the plan's peak (issue 18).
   */
  readonly touched: Set<string>;
  readonly changes: DraftChange[];
  /** Changes of entries marked `protect` (few, usually none): the safety rules judge their destroys. */
  readonly protectedChanges: Set<DraftChange>;
  readonly actions: DraftAction[];
  readonly errors: PlanError[];
  readonly warnings: PlanError[];
  /** Entries whose object needs no change. */
  unchanged: number;
  /** Delete key → create key of each replace; their order is decided once every action is known. */
  readonly replacements: Map<string, string>;
  /**
   * Managed objects that entries take over by their unique key (a rule
   * renamed, or moved between names): the object is kept and renamed, never
   * deleted and created again. See `matchUniqueKeys`.
   */
  readonly keyMatched: Map<DesiredEntry, LiveObject>;
  /** FieldChanges the creates of this plan share. */
  readonly sharedFieldChanges: SharedFieldChanges;
  /** What the EntryCreates of each kind share, made when the kind's first is planned. */
  readonly createsOfKind: Map<Kind, CreatesOfKind>;
}

export function createPlanState(
  desired: DesiredState,
  live: LiveState,
  options: PlanOptions,
  kinds: readonly Kind[],
): PlanState {
  const kindsByName = new Map(kinds.map((kind) => [kind.name, kind]));
  const { liveById, managed } = indexLive(live, options.owner, kindsByName);
  const normalizedSpecs = new Map<DesiredEntry, Readonly<Record<string, unknown>>>();
  for (const entry of desired.entries) {
    const kind = kindsByName.get(entry.kind);
    if (kind === undefined) continue;
    const normalized = kind.normalizeDesired(entry.spec);
    // Held only where normalizing changed something: see normalizedSpecOf.
    if (!sameSpec(entry.spec, normalized)) normalizedSpecs.set(entry, normalized);
  }
  return {
    desired,
    live,
    options,
    kindsByName,
    liveById,
    managed,
    normalizedSpecs,
    resolvedIds: new Map(),
    referencedKinds: referencedKindsOf(kinds),
    entryByObject: new Map(),
    touched: new Set(),
    changes: [],
    protectedChanges: new Set(),
    actions: [],
    errors: [],
    warnings: [],
    unchanged: 0,
    replacements: new Map(),
    keyMatched: new Map(),
    sharedFieldChanges: new SharedFieldChanges(),
    createsOfKind: new Map(),
  };
}

/**
 * Whether normalizing changed nothing (same keys in the same order, same
 * values): most entries are written canonically, and a copy of each held
 * for the whole plan, in a map of 100,000, was ~40 MB (issue 18).
 */
function sameSpec(
  spec: Readonly<Record<string, unknown>>,
  normalized: Readonly<Record<string, unknown>>,
): boolean {
  const keys = Object.keys(spec);
  const normalizedKeys = Object.keys(normalized);
  if (keys.length !== normalizedKeys.length) return false;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    if (normalizedKeys[index] !== key || spec[key] !== normalized[key]) return false;
  }
  return true;
}

function referencedKindsOf(kinds: readonly Kind[]): Set<KindName> {
  const referenced = new Set<KindName>();
  for (const kind of kinds) {
    for (const rule of [...kind.fields, ...kind.modules.flatMap((module) => module.fields)])
      if (rule.references !== undefined) referenced.add(rule.references);
  }
  return referenced;
}

/**
 * Records the ID an entry's name resolves to. Only for referenced kinds: a
 * map of 100,000 rules' addresses that no field can name was most of what
 * planning them kept (issue 18).
 */
export function recordResolvedId(
  state: PlanState,
  kind: Kind,
  address: string,
  id: string | PendingId,
): void {
  if (state.referencedKinds.has(kind.name)) state.resolvedIds.set(address, id);
}

/** Whether the manifests have an entry of `kind` named `name`. */
export function isDesired(state: PlanState, kind: KindName, name: string): boolean {
  return desiredByNameOf(state).get(kind)?.has(name) ?? false;
}

const desiredByNameCache = new WeakMap<PlanState, ReadonlyMap<KindName, ReadonlyMap<string, DesiredEntry>>>();

/**
 * Desired entries by kind, then name (no `kind.name` string per entry), built
 * the first time a name is asked about: a plan whose entries name no entry
 * and prune nothing (100,000 rules naming their policy by ID, converged or
 * not) needs no map of 100,000 names held through planning (issue 18).
 */
export function desiredByNameOf(state: PlanState): ReadonlyMap<KindName, ReadonlyMap<string, DesiredEntry>> {
  const cached = desiredByNameCache.get(state);
  if (cached !== undefined) return cached;
  const desiredByName = entriesByKindAndName(state.desired.entries);
  desiredByNameCache.set(state, desiredByName);
  return desiredByName;
}

/** The entry's normalized spec (see `normalizedSpecs`). */
export function normalizedSpecOf(
  state: PlanState,
  kind: Kind,
  entry: DesiredEntry,
): Readonly<Record<string, unknown>> {
  const normalized = state.normalizedSpecs.get(entry);
  if (normalized !== undefined) return normalized;
  // Every entry of a kind in use was normalized up front; one not held normalized to its own spec.
  return state.kindsByName.get(entry.kind) === kind ? entry.spec : kind.normalizeDesired(entry.spec);
}

/** Records one change for people and the actions that carry it out. */
export function addChange(
  state: PlanState,
  change: Omit<ResourceChange, 'actionKeys' | 'source'>,
  entry: DesiredEntry | undefined,
  source: SourceLocation | undefined,
  actions: readonly DraftAction[],
): void {
  state.actions.push(...actions);
  const actionKeys = actions.map((action) => action.key);
  // What Object.assign({}, change, source ? { source } : {}, { actionKeys }) gives, its properties
  // in the object (inlineRecord). actionKeys from the start: added at assembly, it grew each
  // change's property store, the old one promoted garbage (issue 18).
  const keys = Object.keys(change);
  const values = keys.map((key) => (change as Readonly<Record<string, unknown>>)[key]);
  const set = (key: string, value: unknown): void => {
    const at = keys.indexOf(key);
    if (at === -1) {
      keys.push(key);
      values.push(value);
    } else values[at] = value;
  };
  if (source) set('source', source);
  set('actionKeys', actionKeys);
  const draft = inlineRecord(keys, values) as unknown as DraftChange;
  state.changes.push(draft);
  if (entry?.protect === true) state.protectedChanges.add(draft);
}

/** What the EntryCreates of `kind` share in this plan. */
export function createsOf(state: PlanState, kind: Kind): CreatesOfKind {
  let shared = state.createsOfKind.get(kind);
  if (shared === undefined) {
    shared = new CreatesOfKind(kind, state.options.owner, state.sharedFieldChanges);
    state.createsOfKind.set(kind, shared);
  }
  return shared;
}

/** Records the create of an entry's object as an EntryCreate and its change. */
export function addEntryCreate(state: PlanState, create: EntryCreate): void {
  state.actions.push(create);
  const change = new EntryCreateChange(create);
  state.changes.push(change);
  if (create.isProtected) state.protectedChanges.add(change);
}
