import { diffFields } from './compare-fields.js';
import { draftAction } from './draft-action.js';
import type { DraftBook } from './drafts.js';
import { copiesOf, isObjectList, type MarkedObjects } from './live-index.js';
import { METADATA_FIELD } from './spec-fields.js';

/**
 * Deletes every object marked with our owner that no entry claimed. An
 * incomplete read prunes nothing (LiveState.complete): a warning says how
 * many objects were left alone.
 */
export function planPrunes(book: DraftBook): void {
  const { inputs } = book;
  let skipped = 0;
  for (const kind of inputs.kindsByName.values()) {
    if (kind.ownership !== 'metadata') continue;
    for (const [name, marked] of inputs.managed.get(kind.name) ?? []) {
      // An entry's own object, claimed (every name of a converged account): nothing to prune.
      if (allClaimed(book, marked)) continue;
      const objects = copiesOf(marked);
      const inManifests = inputs.desiredByName.has(kind.name, name);
      for (const object of objects) {
        if (book.claims.has(object)) continue;
        if (!inputs.live.complete) {
          skipped += 1;
          continue;
        }
        book.touched.add(object.id);
        const address =
          objects.length > 1 || inManifests ? `${kind.name}.${name}[${object.id}]` : `${kind.name}.${name}`;
        const reason = inManifests
          ? `a second object marked as ${kind.name}.${name} (owner "${inputs.owner}")`
          : `owned by edgesync (owner "${inputs.owner}") but no longer in the manifests`;
        const remove = draftAction({
          key: `delete:${address}`,
          op: 'delete',
          kind: kind.name,
          name,
          change: address,
          request: kind.deleteRequest(object.id),
          secrets: new Set(),
          objectId: object.id,
          before: object.spec,
          // Access rules hold no stable value: the access ordering alone places their deletes.
          ...(inManifests && kind.accessDecision === undefined
            ? { secondCopyOf: `${kind.name}.${name}` }
            : {}),
        });
        book.addChange(
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
    book.warnings.push({
      code: 'live_state_incomplete',
      message: `the live account was not read completely: ${skipped} owned object(s) no longer in the manifests are not pruned`,
    });
  }
}

function allClaimed(book: DraftBook, marked: MarkedObjects): boolean {
  if (!isObjectList(marked)) return book.claims.has(marked);
  for (const object of marked) if (!book.claims.has(object)) return false;
  return true;
}
