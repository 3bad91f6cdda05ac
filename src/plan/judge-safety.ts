import type { LiveObject } from '../kinds/live-state.js';
import type { Drafts } from './drafts.js';
import { forEachMarked } from './live-index.js';
import { PARKING_GUARD_PREFIX } from './ordering/park-moves.js';
import type { PlanInputs } from './plan-inputs.js';
import { type DestroyFact, decideRefusal, type PlanRefusal, type PlanSafety } from './safety-policy.js';
import type { SortedActions } from './sort-actions.js';

/** What the safety policy was shown, and what it decided. */
export interface JudgedSafety {
  readonly safety: PlanSafety;
  readonly refusal: PlanRefusal | undefined;
}

/**
 * The phase after sorting: the facts the safety policy judges (every
 * destroy, who protects it, how many objects the owner owns) and the
 * context the plan was asked for, then the policy's refusal, if any.
 */
export function judgeSafety(inputs: PlanInputs, drafts: Drafts, sorted: SortedActions): JudgedSafety {
  const safety = safetyOf(inputs, drafts, sorted);
  // Decided last: the policy is told everything the plan will say.
  return { safety, refusal: decideRefusal(safety) };
}

function safetyOf(inputs: PlanInputs, drafts: Drafts, sorted: SortedActions): PlanSafety {
  const { options } = inputs;
  const destroys: DestroyFact[] = [];
  for (const change of sorted.drafts) {
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
      deleteRequests: sorted.actions.filter(
        (action) => action.op !== 'create' && action.request.method === 'DELETE',
      ).length,
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

function isLeftoverParkingGuard(inputs: PlanInputs, object: LiveObject | undefined): boolean {
  return object?.marker?.owner === inputs.owner && object.marker.name.startsWith(PARKING_GUARD_PREFIX);
}
