import type { LiveObject } from '../../kinds/live-state.js';
import type { DesiredEntry } from '../../manifest/desired-state.js';
import type { PlanError } from '../plan.js';
import type { PlanInputs } from '../plan-inputs.js';
import { referencedIds } from '../spec-fields.js';
import type { Edge } from './dependency-edges.js';
import type { ActionFacts, OrderingFacts } from './ordering-facts.js';

/**
 * Ordering rule 2 of docs/plan.md: references move off an object before it
 * is deleted. The delete waits for every action on an object whose live
 * state names it; when the plan changes no such object, the service would
 * refuse the delete, and the plan says so now, naming both.
 */
export function moveReferencesBeforeDeletes(
  facts: OrderingFacts,
  inputs: PlanInputs,
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
): { readonly edges: Edge[]; readonly errors: PlanError[] } {
  const errors: PlanError[] = [];
  const edges: Edge[] = [];
  // Who names whom is read only for a delete: a plan without one (no-ops) needs no map of the account.
  if (!facts.list.some((of) => of.action.op === 'delete' && of.objectId !== undefined))
    return { edges, errors };
  const referrers = new Map<string, string[]>();
  for (const object of inputs.liveById.values()) {
    const kind = inputs.kindsByName.get(object.kind);
    if (kind === undefined) continue;
    for (const id of referencedIds(kind, object.spec)) {
      // Pushed, not copied: 100,000 rules name one policy.
      const named = referrers.get(id);
      if (named === undefined) referrers.set(id, [object.id]);
      else named.push(object.id);
    }
  }
  const actionsByObject = new Map<string, ActionFacts[]>();
  for (const of of facts.list) {
    if (of.objectId === undefined) continue;
    const onObject = actionsByObject.get(of.objectId);
    if (onObject === undefined) actionsByObject.set(of.objectId, [of]);
    else onObject.push(of);
  }
  for (const remove of facts.list) {
    if (remove.action.op !== 'delete' || remove.objectId === undefined) continue;
    for (const referrer of referrers.get(remove.objectId) ?? []) {
      if (referrer === remove.objectId) continue;
      const moves = actionsByObject.get(referrer) ?? [];
      if (moves.length === 0) errors.push(stillReferenced(inputs, claims, remove, referrer));
      for (const other of moves) edges.push({ waiter: remove.action, key: other.action.key });
    }
  }
  return { edges, errors };
}

function stillReferenced(
  inputs: PlanInputs,
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
  remove: ActionFacts,
  referrerId: string,
): PlanError {
  const referrer = inputs.liveById.get(referrerId);
  const owner = referrer?.marker?.owner === inputs.owner ? ` (${referrer.kind}.${referrer.marker.name})` : '';
  // The entry that keeps naming it is where a person fixes this.
  const { action } = remove;
  const source = (referrer && claims.get(referrer))?.location ?? action.source;
  return {
    code: 'still_referenced',
    message: `${action.change} (${remove.objectId}) cannot be deleted: ${referrer?.kind ?? 'object'} ${referrerId}${owner} still names it and this plan does not change that`,
    ...(source ? { source } : {}),
    entry: { kind: action.kind, name: action.name },
  };
}
