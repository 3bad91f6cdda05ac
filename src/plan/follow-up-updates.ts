import type { Plan } from './plan.js';

/**
 * How many creates (a replace's included) are followed by an update that
 * sets what the create request cannot carry (`setAfterCreate`: a reserved
 * address's endpoint_configuration_id). The summary line says so, because
 * the apply sends that update and reports it (issue 19: "0 to update").
 */
export function followUpUpdateCount(plan: Pick<Plan, 'changes' | 'actions'>): number {
  const creating = new Set(
    plan.changes
      .filter((change) => change.op === 'create' || change.op === 'replace')
      .map((change) => change.address),
  );
  return plan.actions.filter((action) => action.op === 'update' && creating.has(action.change)).length;
}

/** `4 to create (1 then updated)`: the create count with its follow-up updates. */
export function createCountWords(created: number, followUps: number, verb: string): string {
  return followUps > 0 ? `${created} ${verb} (${followUps} then updated)` : `${created} ${verb}`;
}
