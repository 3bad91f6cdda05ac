import type { DraftAction } from '../draft-action.js';
import type { ItemTakeover } from '../unique-items.js';
import type { Edge } from './dependency-edges.js';
import type { OrderingFacts } from './ordering-facts.js';

/**
 * Ordering rule 7 of docs/plan.md: a replace creates first and deletes
 * last, so a name never points at nothing, unless the key its old object
 * holds is wanted (by the replacement itself or by another action): then the
 * old object goes first and rule 3 makes the takers wait for it. A replaced
 * allow rule also goes first: removing an allow only narrows access, and
 * waiting for its successor would tie it into the access ordering (rule 4).
 * A replace a kill interrupted left two copies of an entry (or a create
 * whose answer was lost did): the copy not kept is deleted last, once the
 * kept one is in place, except that a second copy holding a hostport its
 * entry takes goes first, since the service gives the item to the kept copy
 * only once the other lets it go. `takeovers`: the hostports that change
 * hands (Drafts.takeovers); who takes each key is an ordering fact.
 */
export function orderReplacements(
  facts: OrderingFacts,
  replacements: ReadonlyMap<string, string>,
  takeovers: readonly ItemTakeover[],
): Edge[] {
  const edges = deleteSecondCopiesLast(facts, takeovers);
  // No map of every action by key for a plan without a replace (100,000 creates).
  if (replacements.size === 0) return edges;
  const byKey = new Map(facts.list.map((of) => [of.action.key, of]));
  for (const [deleteKey, createKey] of replacements) {
    const remove = byKey.get(deleteKey);
    if (remove === undefined) continue;
    const create = byKey.get(createKey);
    const takers = remove.frees === undefined ? [] : (facts.takers.get(remove.frees) ?? []);
    const keyWanted = takers.length > 0;
    // An access rule whose old key another action takes (a deny moving to
    // another policy while an allow takes its old CIDR) needs no edge of its
    // own: the taker waits for the delete (rule 3) and the access ordering
    // places the create and the delete; tying them here too made a cycle
    // with the deny's delete waiting for its own create.
    const keyWantedByOther = keyWanted && (create === undefined || !takers.includes(create));
    if (keyWantedByOther && remove.access !== undefined) continue;
    if (!keyWanted && remove.access !== 'allow') edges.push({ waiter: remove.action, key: createKey });
    else if (create !== undefined) edges.push({ waiter: create.action, key: deleteKey });
  }
  return edges;
}

/**
 * A second copy of an entry is deleted only once the copy the entry keeps
 * is in place, after every action that creates or updates it; not after one
 * that takes the key this copy frees, which waits for this delete (rule 3),
 * nor after one that takes a hostport this copy lets go (rule 3: the copy
 * goes first).
 */
function deleteSecondCopiesLast(facts: OrderingFacts, takeovers: readonly ItemTakeover[]): Edge[] {
  const edges: Edge[] = [];
  const copies = facts.list.filter((of) => of.action.secondCopyOf !== undefined);
  if (copies.length === 0) return edges;
  const handedOver = (remove: DraftAction, taker: DraftAction): boolean =>
    takeovers.some(({ takers, releases }) => releases.includes(remove) && takers.includes(taker));
  for (const remove of copies) {
    const entryAddress = remove.action.secondCopyOf;
    for (const of of facts.list) {
      if (of.action.change !== entryAddress || of.action.op === 'delete') continue;
      if (remove.frees !== undefined && (facts.takers.get(remove.frees) ?? []).includes(of)) continue;
      if (handedOver(remove.action, of.action)) continue;
      edges.push({ waiter: remove.action, key: of.action.key });
    }
  }
  return edges;
}
