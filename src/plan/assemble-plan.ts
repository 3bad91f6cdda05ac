import type { KindName } from '../kinds/kind-name.js';
import type { LiveObject } from '../kinds/live-state.js';
import { type DraftAction, type DraftChange, toAction } from './draft-action.js';
import { EntryCreate } from './entry-create.js';
import { forEachMarked, isManagedObject } from './live-index.js';
import { PARKING_GUARD_PREFIX } from './park-moves.js';
import {
  type Action,
  OPERATIONS,
  type Operation,
  type Plan,
  type PlanSummary,
  type ResourceChange,
} from './plan.js';
import type { PlanState } from './plan-state.js';
import { type DestroyFact, decideRefusal, type PlanSafety } from './safety-policy.js';
import { topologicalOrder } from './topological-order.js';

/**
 * The Plan from the (narrowed) drafts: changes and actions in registry
 * order, actions then topologically sorted, with summary, safety refusal and
 * the fingerprints of every live object the plan depends on.
 */
export function assemblePlan(
  state: PlanState,
  drafts: readonly DraftChange[],
  drafted: readonly DraftAction[],
): Plan {
  const kindOrder = new Map([...state.kindsByName.keys()].map((kind, index) => [kind, index]));
  const kindIndex = (kind: KindName): number => kindOrder.get(kind) ?? -1;
  const sortedDrafts = inKindOrder(drafts, (draft) => kindIndex(draft.kind));
  const narrowed = drafted !== state.actions;
  const keys = plannedKeysAskedAbout(drafts, drafted, narrowed);
  const nodes: Action[] = inKindOrder(drafted, (action) => kindIndex(action.kind)).map((action) =>
    action instanceof EntryCreate ? action.assembled(keys) : toAction(action, keys),
  );
  const ordered = topologicalOrder(nodes);
  if (!ordered.ok) {
    state.errors.push({
      code: 'dependency_cycle',
      message: `the actions depend on each other in a cycle: ${ordered.cycle.join(', ')}`,
    });
  }
  // The drafted change is the plan's, not a copy: a copy of each of 100,000 changes sat next to the
  // drafts at the plan's peak (issue 18). The drafts are this run's own, made by addChange, so nothing
  // the caller gave is changed. Narrowing may leave some of its action keys out.
  const changes: readonly ResourceChange[] = narrowed
    ? sortedDrafts.map((draft) => narrowedChange(draft, keys))
    : sortedDrafts;
  const summary = summarize(state, changes);
  const safety = safetyOf(state, sortedDrafts, ordered.ok ? ordered.order : nodes);
  const refusal = decideRefusal(safety);
  const plan: Omit<Plan, 'fingerprints'> = {
    formatVersion: 1,
    owner: state.options.owner,
    changes,
    actions: ordered.ok ? ordered.order : nodes,
    summary,
    errors: [...state.errors],
    ...(state.warnings.length > 0 ? { warnings: [...state.warnings] } : {}),
    ...(refusal ? { refusal } : {}),
    safety,
    desiredHash: state.desired.hash,
  };
  return withFingerprintsWhenRead(plan, fingerprintedObjects(state));
}

/**
 * The items by their kind's place in the registry, in drafted order within a
 * kind (Array.prototype.sort is stable): the list itself when already so, as
 * a plan of one kind is. Sorted without a { item, position } pair per item,
 * 100,000 of them next to the drafts at the plan's peak (issue 18).
 */
function inKindOrder<T>(items: readonly T[], kindIndexOf: (item: T) => number): readonly T[] {
  for (let at = 1; at < items.length; at += 1) {
    if (kindIndexOf(items[at - 1] as T) > kindIndexOf(items[at] as T))
      return items.slice().sort((a, b) => kindIndexOf(a) - kindIndexOf(b));
  }
  return items;
}

/**
 * The keys of drafted actions that are asked about: those actions wait for,
 * and, when targets or excludes left actions out, those changes list. Unless
 * narrowed, a change lists only keys of drafted actions (addChange and
 * replaceAction keep the two together), so its keys are not asked about.
 * A set of every key was ~4 MB at 100,000 creates, most of which nothing
 * waits for (issue 18).
 */
function plannedKeysAskedAbout(
  drafts: readonly DraftChange[],
  drafted: readonly DraftAction[],
  narrowed: boolean,
): ReadonlySet<string> {
  const asked = new Set<string>();
  for (const action of drafted) for (const key of action.dependsOn) asked.add(key);
  if (narrowed) for (const draft of drafts) for (const key of draft.actionKeys) asked.add(key);
  const planned = new Set<string>();
  for (const action of drafted) if (asked.has(action.key)) planned.add(action.key);
  return planned;
}

/**
 * The change with only the keys still in the plan: the draft itself, when
 * none was left out (as always for an EntryCreateChange, whose one action is
 * the reason it is in the plan), or given the list of those kept.
 */
function narrowedChange(draft: DraftChange, keys: ReadonlySet<string>): ResourceChange {
  const drafted = draft.actionKeys;
  const kept = keptKeys(drafted, keys);
  return kept === drafted ? draft : Object.assign(draft, { actionKeys: kept });
}

/**
 * The keys still in the plan: the drafted list itself when none was left out
 * (a filtered copy holds 17 slots for one key, kept per change).
 */
function keptKeys(drafted: readonly string[], keys: ReadonlySet<string>): readonly string[] {
  return drafted.every((key) => keys.has(key)) ? drafted : drafted.filter((key) => keys.has(key));
}

function summarize(state: PlanState, changes: readonly ResourceChange[]): PlanSummary {
  const counts = Object.fromEntries(OPERATIONS.map((op) => [op, 0])) as Record<Operation, number>;
  for (const change of changes) counts[change.op] += 1;
  let unmanaged = 0;
  for (const object of state.liveById.values()) {
    if (state.kindsByName.get(object.kind)?.ownership !== 'metadata') continue;
    if (object.marker?.owner === state.options.owner || state.entryByObject.has(object)) continue;
    unmanaged += 1;
  }
  return { ...counts, unchanged: state.unchanged, unmanaged };
}

/** The facts the safety policy judges, and the context the plan was asked for. */
function safetyOf(state: PlanState, drafts: readonly DraftChange[], actions: readonly Action[]): PlanSafety {
  const { options } = state;
  const destroys: DestroyFact[] = [];
  for (const change of drafts) {
    if (change.op !== 'delete' && change.op !== 'replace') continue;
    const live = change.id === undefined ? undefined : state.liveById.get(change.id);
    // A temporary deny a killed apply left is ours and was never wanted: its prune destroys nothing.
    if (isLeftoverParkingGuard(state, live)) continue;
    const inManifest = state.protectedChanges.has(change);
    const protectedBy = inManifest ? 'manifest' : live?.marker?.protect === true ? 'account' : undefined;
    destroys.push({
      address: change.address,
      op: change.op,
      reason: change.reason,
      ...(protectedBy ? { protectedBy } : {}),
    });
  }
  return {
    context: {
      context: options.context ?? 'cli',
      force: options.force ?? false,
      allowEmpty: options.allowEmpty ?? false,
      ...(options.maxDestroy ? { maxDestroy: options.maxDestroy } : {}),
    },
    facts: {
      owner: options.owner,
      desiredEntries: state.desired.entries.length,
      owned: ownedCount(state),
      readComplete: state.live.complete,
      destroys,
      // A create is a POST: its request, made when read (EntryCreate), is not made to tell.
      deleteRequests: actions.filter((action) => action.op !== 'create' && action.request.method === 'DELETE')
        .length,
    },
  };
}

/** How many live objects carry our owner's marker, leftover temporary denies aside. */
function ownedCount(state: PlanState): number {
  let owned = 0;
  const count = (object: LiveObject): void => {
    if (!isLeftoverParkingGuard(state, object)) owned += 1;
  };
  for (const byName of state.managed.values()) forEachMarked(byName, count);
  return owned;
}

function isLeftoverParkingGuard(
  state: PlanState,
  object: { readonly marker: { readonly owner: string; readonly name: string } | null } | undefined,
): boolean {
  return object?.marker?.owner === state.options.owner && object.marker.name.startsWith(PARKING_GUARD_PREFIX);
}

/**
 * The objects the plan read, changes or owns, each once: their fingerprints,
 * by ID, go into the plan, and apply compares them to refuse a plan the
 * account has moved away from.
 */
function fingerprintedObjects(state: PlanState): LiveObject[] {
  // The objects themselves, not their IDs looked up: every managed one, then the claimed and touched
  // others, each once. Built without spreading, and in a list sized once for all of them and cut to
  // those listed: grown by push or spread, lists of 100,000 were garbage at the plan's peak (issue 18).
  let managedCount = 0;
  const count = (): void => {
    managedCount += 1;
  };
  for (const byName of state.managed.values()) forEachMarked(byName, count);
  const objects = new Array<LiveObject>(managedCount + state.entryByObject.size + state.touched.size);
  let listed = 0;
  const list = (object: LiveObject): void => {
    objects[listed++] = object;
  };
  const managed = (object: LiveObject): boolean =>
    isManagedObject(object, state.options.owner, state.kindsByName);
  for (const byName of state.managed.values()) forEachMarked(byName, list);
  for (const object of state.entryByObject.keys()) if (!managed(object)) list(object);
  for (const id of state.touched) {
    const object = state.liveById.get(id);
    if (object !== undefined && !managed(object) && !state.entryByObject.has(object)) list(object);
  }
  objects.length = listed;
  return objects;
}

/**
 * The plan with its fingerprints record, by ID in ID order, made the first
 * time it is read and then kept: a saved plan, the JSON and apply read it,
 * the text and markdown of a plan do not. At 100,000 objects the record is
 * ~6.3 MB held (a dictionary of 262,144 slots) and as much garbage while it
 * grows, which, made at the end of planning next to the planner's indexes,
 * was most of what `plan` held above the live read at its peak (issue 18).
 * The objects' fingerprints never change once read, so the record is the
 * same whenever it is made. A function of its own, so that the getter holds
 * only the objects, not what assemblePlan's other closures hold.
 */
function withFingerprintsWhenRead(fields: Omit<Plan, 'fingerprints'>, objects: LiveObject[]): Plan {
  let byId: Record<string, string> | undefined;
  return {
    ...fields,
    get fingerprints() {
      if (byId === undefined) {
        byId = {};
        objects.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        for (const object of objects) byId[object.id] = object.fingerprint;
        // Listed, the objects are no longer needed here.
        objects.length = 0;
      }
      return byId;
    },
  };
}
