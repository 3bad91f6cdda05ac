import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { removalChanges } from './compare-fields.js';
import type { Drafted } from './drafts.js';
import { copiesOf, isObjectList, type MarkedObjects } from './live-index.js';
import type { PlanInputs } from './plan-inputs.js';
import { METADATA_FIELD, NO_SECRETS } from './spec-fields.js';

/**
 * Deletes every object marked with our owner that no entry claimed. An
 * incomplete read prunes nothing (LiveState.complete): a warning says how
 * many objects were left alone. Returns them, for draftPlan to write into
 * the book.
 */
export function planPrunes(inputs: PlanInputs, claims: ReadonlyMap<LiveObject, DesiredEntry>): Drafted {
  const drafted: Drafted = { changes: [], errors: [], warnings: [], touched: [] };
  let skipped = 0;
  for (const kind of inputs.kindsByName.values()) {
    if (kind.ownership !== 'metadata') continue;
    for (const [name, marked] of inputs.managed.get(kind.name) ?? []) {
      // An entry's own object, claimed (every name of a converged account): nothing to prune.
      if (allClaimed(claims, marked)) continue;
      const objects = copiesOf(marked);
      const inManifests = inputs.desiredByName.has(kind.name, name);
      for (const object of objects) {
        if (claims.has(object)) continue;
        if (!inputs.live.complete) {
          skipped += 1;
          continue;
        }
        drafted.touched.push(object.id);
        const address =
          objects.length > 1 || inManifests ? `${kind.name}.${name}[${object.id}]` : `${kind.name}.${name}`;
        const reason = inManifests
          ? `a second object marked as ${kind.name}.${name} (owner "${inputs.owner}")`
          : `owned by edgesync (owner "${inputs.owner}") but no longer in the manifests`;
        const remove = {
          key: `delete:${address}`,
          op: 'delete',
          kind: kind.name,
          name,
          change: address,
          request: kind.deleteRequest(object.id),
          secrets: NO_SECRETS,
          objectId: object.id,
          before: object.spec,
          freesKey: inputs.keys.live.get(object),
          // Access rules hold no stable value: the access ordering alone places their deletes.
          ...(inManifests && kind.accessDecision === undefined
            ? { secondCopyOf: `${kind.name}.${name}` }
            : {}),
        } as const;
        drafted.changes.push({
          change: {
            address,
            op: 'delete',
            kind: kind.name,
            name,
            id: object.id,
            changes: removalChanges(
              kind.fields.filter((rule) => rule.name !== METADATA_FIELD),
              object.spec,
            ),
            reason,
          },
          source: undefined,
          actions: [remove],
        });
      }
    }
  }
  if (skipped > 0) {
    drafted.warnings.push({
      code: 'live_state_incomplete',
      message: `the live account was not read completely: ${skipped} owned object(s) no longer in the manifests are not pruned`,
    });
  }
  return drafted;
}

function allClaimed(claims: ReadonlyMap<LiveObject, DesiredEntry>, marked: MarkedObjects): boolean {
  if (!isObjectList(marked)) return claims.has(marked);
  for (const object of marked) if (!claims.has(object)) return false;
  return true;
}
