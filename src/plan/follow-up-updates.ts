import type { Plan } from './plan.js';

/**
 * How many creates (a replace's included) are followed by an update that
 * sets what the create request cannot carry (`setAfterCreate`: a reserved
 * address's endpoint_configuration_id). The summary line says so, because
 * the apply sends that update and reports it; a summary of "0 to update" beside
 * an update that is sent would not be true.
 */
export function followUpUpdateCount(plan: Pick<Plan, 'changes' | 'actions'>): number {
  // Sets of the updated changes' addresses, not of every create's: the line ends the output of a plan
  // of 100,000 creates, and a set of their addresses (and its garbage) was the output's peak (docs/performance.md).
  const updates = plan.actions.filter((action) => action.op === 'update');
  if (updates.length === 0) return 0;
  const updated = new Set(updates.map((action) => action.change));
  const creating = new Set<string>();
  for (const change of plan.changes)
    if ((change.op === 'create' || change.op === 'replace') && updated.has(change.address))
      creating.add(change.address);
  return updates.filter((action) => creating.has(action.change)).length;
}

/** `4 to create (1 then updated)`: the create count with its follow-up updates. */
export function createCountWords(created: number, followUps: number, verb: string): string {
  return followUps > 0 ? `${created} ${verb} (${followUps} then updated)` : `${created} ${verb}`;
}
