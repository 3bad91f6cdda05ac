import type { KindName } from '../kinds/kind-name.js';
import type { LiveObject } from '../kinds/live-state.js';
import { type DraftChange, plainAction } from './draft-action.js';
import type { Drafts } from './drafts.js';
import { EntryCreate } from './entry-create.js';
import { forEachMarked, isManagedObject } from './live-index.js';
import type { Narrowed } from './narrow-plan.js';
import { NONE } from './no-strings.js';
import type { DependencyEdges } from './ordering/dependency-edges.js';
import { PARKING_GUARD_PREFIX } from './ordering/park-moves.js';
import {
  type Action,
  OPERATIONS,
  type Operation,
  type Plan,
  type PlanError,
  type PlanSummary,
  type ResourceChange,
} from './plan.js';
import type { PlanInputs } from './plan-inputs.js';
import { type DestroyFact, decideRefusal, type PlanSafety } from './safety-policy.js';
import { topologicalOrder } from './topological-order.js';

/**
 * The last phase: the Plan from the (narrowed) drafts and their dependency
 * edges. Changes and actions in registry order, actions then topologically
 * sorted, each with the keys it waits for; with summary, safety refusal and
 * the fingerprints of every live object the plan depends on. `errors`: every
 * phase's, in the order the phases ran.
 */
export function assemblePlan(
  inputs: PlanInputs,
  drafts: Drafts,
  edges: DependencyEdges,
  narrowed: Narrowed,
  errors: readonly PlanError[],
): Plan {
  const kindOrder = new Map([...inputs.kindsByName.keys()].map((kind, index) => [kind, index]));
  const kindIndex = (kind: KindName): number => kindOrder.get(kind) ?? -1;
  const sortedDrafts = inKindOrder(narrowed.changes, (draft) => kindIndex(draft.kind));
  const isNarrowed = narrowed.actions !== drafts.actions;
  const keys = plannedKeysAskedAbout(narrowed, edges, isNarrowed);
  const nodes: Action[] = inKindOrder(narrowed.actions, (action) => kindIndex(action.kind)).map((action) => {
    const dependsOn = keptDependencies(edges.of(action), keys);
    return action instanceof EntryCreate ? action.waitingFor(dependsOn) : plainAction(action, dependsOn);
  });
  const ordered = topologicalOrder(nodes, (action) => action.dependsOn);
  const cycle: PlanError[] = ordered.ok
    ? []
    : [
        {
          code: 'dependency_cycle',
          message: `the actions depend on each other in a cycle: ${ordered.cycle.join(', ')}`,
        },
      ];
  // The drafted change is the plan's, not a copy: a copy of each of 100,000 changes sat next to the
  // drafts at the plan's peak. Narrowing may leave some of its action keys out.
  const changes: readonly ResourceChange[] = isNarrowed
    ? sortedDrafts.map((draft) => narrowedChange(draft, keys))
    : sortedDrafts;
  const summary = summarize(inputs, drafts, changes);
  const safety = safetyOf(inputs, drafts, sortedDrafts, ordered.ok ? ordered.order : nodes);
  const refusal = decideRefusal(safety);
  const plan: Omit<Plan, 'fingerprints'> = {
    formatVersion: 1,
    owner: inputs.owner,
    changes,
    actions: ordered.ok ? ordered.order : nodes,
    summary,
    errors: [...errors, ...cycle],
    ...(drafts.warnings.length > 0 ? { warnings: [...drafts.warnings] } : {}),
    ...(refusal ? { refusal } : {}),
    safety,
    desiredHash: inputs.desired.hash,
  };
  return withFingerprintsWhenRead(plan, fingerprintedObjects(inputs, drafts));
}

/** Sorted; a list of its own length when nothing is left out (a filtered copy holds 17 slots, kept per action). */
function keptDependencies(dependsOn: ReadonlySet<string>, keys: ReadonlySet<string>): readonly string[] {
  if (dependsOn.size === 0) return NONE;
  const kept = [...dependsOn];
  return (kept.every((key) => keys.has(key)) ? kept : kept.filter((key) => keys.has(key))).sort();
}

/**
 * The items by their kind's place in the registry, in drafted order within a
 * kind (Array.prototype.sort is stable): the list itself when already so, as
 * a plan of one kind is. Sorted without a { item, position } pair per item,
 * 100,000 of them next to the drafts at the plan's peak.
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
 * narrowed, a change lists only keys of drafted actions (drafting and
 * parking keep the two together), so its keys are not asked about.
 * A set of every key was ~4 MB at 100,000 creates, most of which nothing
 * waits for.
 */
function plannedKeysAskedAbout(
  narrowed: Narrowed,
  edges: DependencyEdges,
  isNarrowed: boolean,
): ReadonlySet<string> {
  const asked = new Set<string>();
  for (const action of narrowed.actions) for (const key of edges.of(action)) asked.add(key);
  if (isNarrowed) for (const draft of narrowed.changes) for (const key of draft.actionKeys) asked.add(key);
  const planned = new Set<string>();
  for (const action of narrowed.actions) if (asked.has(action.key)) planned.add(action.key);
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
  // A copy, the drafts left as drafted: only a plain change can lose a key (a create's one action is why it is here).
  return kept === drafted ? draft : { ...draft, actionKeys: kept };
}

/**
 * The keys still in the plan: the drafted list itself when none was left out
 * (a filtered copy holds 17 slots for one key, kept per change).
 */
function keptKeys(drafted: readonly string[], keys: ReadonlySet<string>): readonly string[] {
  return drafted.every((key) => keys.has(key)) ? drafted : drafted.filter((key) => keys.has(key));
}

function summarize(inputs: PlanInputs, drafts: Drafts, changes: readonly ResourceChange[]): PlanSummary {
  const counts = Object.fromEntries(OPERATIONS.map((op) => [op, 0])) as Record<Operation, number>;
  for (const change of changes) counts[change.op] += 1;
  let unmanaged = 0;
  for (const object of inputs.liveById.values()) {
    if (inputs.kindsByName.get(object.kind)?.ownership !== 'metadata') continue;
    if (object.marker?.owner === inputs.owner || drafts.claims.has(object)) continue;
    unmanaged += 1;
  }
  return { ...counts, unchanged: drafts.unchanged, unmanaged };
}

/** The facts the safety policy judges, and the context the plan was asked for. */
function safetyOf(
  inputs: PlanInputs,
  drafts: Drafts,
  changes: readonly DraftChange[],
  actions: readonly Action[],
): PlanSafety {
  const { options } = inputs;
  const destroys: DestroyFact[] = [];
  for (const change of changes) {
    if (change.op !== 'delete' && change.op !== 'replace') continue;
    const live = change.id === undefined ? undefined : inputs.liveById.get(change.id);
    // A temporary deny a killed apply left is ours and was never wanted: its prune destroys nothing.
    if (isLeftoverParkingGuard(inputs, live)) continue;
    const inManifest = drafts.protectedChanges.has(change);
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
      desiredEntries: inputs.desired.entries.length,
      owned: ownedCount(inputs),
      readComplete: inputs.live.complete,
      destroys,
      // A create is a POST: its request, made when read (EntryCreate), is not made to tell.
      deleteRequests: actions.filter((action) => action.op !== 'create' && action.request.method === 'DELETE')
        .length,
    },
  };
}

/** How many live objects carry our owner's marker, leftover temporary denies aside. */
function ownedCount(inputs: PlanInputs): number {
  let owned = 0;
  const count = (object: LiveObject): void => {
    if (!isLeftoverParkingGuard(inputs, object)) owned += 1;
  };
  for (const byName of inputs.managed.values()) forEachMarked(byName, count);
  return owned;
}

function isLeftoverParkingGuard(
  inputs: PlanInputs,
  object: { readonly marker: { readonly owner: string; readonly name: string } | null } | undefined,
): boolean {
  return object?.marker?.owner === inputs.owner && object.marker.name.startsWith(PARKING_GUARD_PREFIX);
}

/**
 * The objects the plan read, changes or owns, each once: their fingerprints,
 * by ID, go into the plan, and apply compares them to refuse a plan the
 * account has moved away from.
 */
function fingerprintedObjects(inputs: PlanInputs, drafts: Drafts): LiveObject[] {
  // The objects themselves, not their IDs looked up: every managed one, then the claimed and touched
  // others, each once. Built without spreading, and in a list sized once for all of them and cut to
  // those listed: grown by push or spread, lists of 100,000 were garbage at the plan's peak.
  let managedCount = 0;
  const count = (): void => {
    managedCount += 1;
  };
  for (const byName of inputs.managed.values()) forEachMarked(byName, count);
  const objects = new Array<LiveObject>(managedCount + drafts.claims.size + drafts.touched.size);
  let listed = 0;
  const list = (object: LiveObject): void => {
    objects[listed++] = object;
  };
  const managed = (object: LiveObject): boolean => isManagedObject(object, inputs.owner, inputs.kindsByName);
  for (const byName of inputs.managed.values()) forEachMarked(byName, list);
  for (const object of drafts.claims.keys()) if (!managed(object)) list(object);
  for (const id of drafts.touched) {
    const object = inputs.liveById.get(id);
    if (object !== undefined && !managed(object) && !drafts.claims.has(object)) list(object);
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
 * was most of what `plan` held above the live read at its peak.
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
