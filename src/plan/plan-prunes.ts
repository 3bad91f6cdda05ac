import { diffFields } from './compare-fields.js';
import { addDependency, type DraftAction, draftAction } from './draft-action.js';
import { copiesOf, isObjectList, type MarkedObjects } from './live-index.js';
import { orderingFacts, takenKey } from './order-actions.js';
import { addChange, isDesired, type PlanState } from './plan-state.js';
import { METADATA_FIELD } from './spec-fields.js';

/**
 * Deletes every object marked with our owner that no entry claimed. An
 * incomplete read prunes nothing (LiveState.complete): a warning says how
 * many objects were left alone.
 */
export function planPrunes(state: PlanState): void {
  let skipped = 0;
  for (const kind of state.kindsByName.values()) {
    if (kind.ownership !== 'metadata') continue;
    for (const [name, marked] of state.managed.get(kind.name) ?? []) {
      // An entry's own object, claimed (every name of a converged account): nothing to prune.
      if (allClaimed(state, marked)) continue;
      const objects = copiesOf(marked);
      const inManifests = isDesired(state, kind.name, name);
      for (const object of objects) {
        if (state.entryByObject.has(object)) continue;
        if (!state.live.complete) {
          skipped += 1;
          continue;
        }
        state.touched.add(object.id);
        const address =
          objects.length > 1 || inManifests ? `${kind.name}.${name}[${object.id}]` : `${kind.name}.${name}`;
        const reason = inManifests
          ? `a second object marked as ${kind.name}.${name} (owner "${state.options.owner}")`
          : `owned by edgesync (owner "${state.options.owner}") but no longer in the manifests`;
        const remove = draftAction({
          key: `delete:${address}`,
          op: 'delete',
          kind: kind.name,
          name,
          change: address,
          request: kind.deleteRequest(object.id),
          secrets: new Set(),
          objectId: object.id,
          ...orderingFacts(kind, object.spec, 'frees'),
        });
        // Access rules hold no stable value; the access ordering places their deletes.
        if (inManifests && kind.accessDecision === undefined)
          waitForKeptCopy(state, remove, `${kind.name}.${name}`);
        addChange(
          state,
          {
            address,
            op: 'delete',
            kind: kind.name,
            name,
            id: object.id,
            changes: diffFields(
              kind.fields.filter((rule) => rule.name !== METADATA_FIELD),
              undefined,
              object.spec,
              '',
            ),
            reason,
          },
          undefined,
          undefined,
          [remove],
        );
      }
    }
  }
  if (skipped > 0) {
    state.warnings.push({
      code: 'live_state_incomplete',
      message: `the live account was not read completely: ${skipped} owned object(s) no longer in the manifests are not pruned`,
    });
  }
}

function allClaimed(state: PlanState, marked: MarkedObjects): boolean {
  if (!isObjectList(marked)) return state.entryByObject.has(marked);
  for (const object of marked) if (!state.entryByObject.has(object)) return false;
  return true;
}

/**
 * A second copy of an entry (a killed replace, a lost create answer) is
 * deleted only once the copy the entry keeps is in place: after every
 * action that creates or updates it. Not after one that takes the key this
 * copy frees: that one waits for this delete.
 */
function waitForKeptCopy(state: PlanState, remove: DraftAction, entryAddress: string): void {
  for (const action of state.actions) {
    if (action.change !== entryAddress || action.op === 'delete') continue;
    if (remove.frees !== undefined && takenKey(state, action) === remove.frees) continue;
    addDependency(remove, action.key);
  }
}
