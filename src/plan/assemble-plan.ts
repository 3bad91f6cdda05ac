import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredState } from '../manifest/desired-state.js';
import type { Drafts } from './drafts.js';
import type { JudgedSafety } from './judge-safety.js';
import {
  OPERATIONS,
  type Operation,
  type Plan,
  type PlanError,
  type PlanSummary,
  type ResourceChange,
} from './plan.js';
import type { PlanInputs } from './plan-inputs.js';
import type { SortedActions } from './sort-actions.js';

/**
 * The last phase: the Plan from the sorted changes and actions, with the
 * summary, the safety facts and refusal, and the fingerprints of every live
 * object the plan depends on. `errors`: every phase's, in the order the
 * phases ran.
 */
export function assemblePlan(
  inputs: PlanInputs,
  drafts: Drafts,
  sorted: SortedActions,
  judged: JudgedSafety,
  errors: readonly PlanError[],
): Plan {
  const { safety, refusal } = judged;
  const plan: Omit<Plan, 'fingerprints' | 'desiredHash'> = {
    formatVersion: 1,
    owner: inputs.owner,
    changes: sorted.changes,
    actions: sorted.actions,
    summary: summarize(inputs, drafts, sorted.changes),
    errors: [...errors, ...sorted.errors],
    ...(drafts.warnings.length > 0 ? { warnings: [...drafts.warnings] } : {}),
    ...(refusal ? { refusal } : {}),
    safety,
  };
  return withFingerprintsWhenRead(plan, inputs.desired, fingerprintedObjects(inputs, drafts));
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

/**
 * The objects the plan read, changes or owns, each once: their fingerprints,
 * by ID, go into the plan, and apply compares them to refuse a plan the
 * account has moved away from.
 */
function fingerprintedObjects(inputs: PlanInputs, drafts: Drafts): LiveObject[] {
  // The objects themselves, not their IDs looked up: every managed one (marked with our owner, of a
  // kind owned by marker), then the claimed and touched others, each once. Built without spreading,
  // and in a list sized once for all of them and cut to those listed: grown by push or spread, lists
  // of 100,000 were garbage at the plan's peak.
  const managed = (object: LiveObject): boolean =>
    object.marker?.owner === inputs.owner && inputs.kindsByName.get(object.kind)?.ownership === 'metadata';
  let managedCount = 0;
  for (const object of inputs.liveById.values()) if (managed(object)) managedCount += 1;
  const objects = new Array<LiveObject>(managedCount + drafts.claims.size + drafts.touched.size);
  let listed = 0;
  for (const object of inputs.liveById.values()) if (managed(object)) objects[listed++] = object;
  for (const object of drafts.claims.keys()) if (!managed(object)) objects[listed++] = object;
  for (const id of drafts.touched) {
    const object = inputs.liveById.get(id);
    if (object !== undefined && !managed(object) && !drafts.claims.has(object)) objects[listed++] = object;
  }
  objects.length = listed;
  return objects;
}

/**
 * The plan with its manifests' hash and its fingerprints record, each made
 * the first time it is read and then kept: a saved plan, the JSON and apply
 * read them, the text and markdown of a plan do not.
 * - The hash is the desired state's, itself computed when first read (the
 *   canonical JSON of every entry: about a tenth of the CPU of a plan of
 *   100,000 creates).
 * - The fingerprints record is by ID in ID order. At 100,000 objects it is
 *   ~6.3 MB held (a dictionary of 262,144 slots) and as much garbage while it
 *   grows, which, made at the end of planning next to the planner's indexes,
 *   was most of what `plan` held above the live read at its peak. The
 *   objects' fingerprints never change once read, so the record is the same
 *   whenever it is made.
 * A function of its own, so that the getters hold only the desired state and
 * the objects, not what assemblePlan's other closures hold.
 */
function withFingerprintsWhenRead(
  fields: Omit<Plan, 'fingerprints' | 'desiredHash'>,
  desired: Pick<DesiredState, 'hash'>,
  objects: LiveObject[],
): Plan {
  let byId: Record<string, string> | undefined;
  return {
    ...fields,
    get desiredHash() {
      return desired.hash;
    },
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
