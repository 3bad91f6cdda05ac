import type { KindName } from '../../kinds/kind-name.js';
import type { SourceLocation } from '../../manifest/source-location.js';
import type { Action, Plan } from '../../plan/plan.js';
import { decideRefusal, type PlanSafety } from '../../plan/safety-policy.js';
import { planWithout } from './plan-without.js';

/** Why the daemon skips an entry besides the planner's error codes (`unique_key_taken`, `reference_not_found`, …). */
export const PROTECTED_REASON = 'protected';
/** The entry waits for (depends on) an entry that is skipped. */
export const WAITS_FOR_SKIPPED_REASON = 'waits_for_skipped';

/** An entry (or owned object, by its marker's name) the daemon leaves as it is, and why. */
export interface SkippedEntry {
  readonly kind: KindName;
  readonly name: string;
  /** The planner's error code, `protected`, or `waits_for_skipped`. */
  readonly reason: string;
  readonly message: string;
  /** Where the manifests say what cannot be done; absent for an object no entry holds. */
  readonly source?: SourceLocation;
  /** For `waits_for_skipped`: the skipped entry (`kind.name`) it waits for. */
  readonly waitsFor?: string;
}

export interface ConfinedPlan {
  /**
   * What the daemon may still apply: the plan without the skipped entries'
   * actions and without what waits for them, its entry errors gone, its
   * refusal decided again for what remains.
   */
  readonly plan: Plan;
  readonly skipped: readonly SkippedEntry[];
}

/**
 * Confines a refusal or an error to the entry it concerns, for the daemon:
 * an entry the account will not let be applied (the planner's errors that
 * name an entry: a unique key another owner holds, a reference the account
 * lacks) or that protect forbids deleting or replacing is skipped, with
 * every entry that waits for it, and the rest of the plan stays; its
 * ordering rules hold for the rest (plan-without.ts). Errors that name no
 * entry (the manifests contradict themselves) and the refusals of the plan
 * as a whole (`empty-desired`, `incomplete-read`, `max-destroy`, decided
 * again for what remains) are left for the caller to refuse the whole plan.
 */
export function skipStuckEntries(plan: Plan): ConfinedPlan {
  const stuck = new Map<string, SkippedEntry>();
  for (const error of plan.errors) {
    if (error.entry === undefined || stuck.has(keyOf(error.entry))) continue;
    stuck.set(keyOf(error.entry), {
      ...error.entry,
      reason: error.code,
      message: error.message,
      ...(error.source ? { source: error.source } : {}),
    });
  }
  const protectedDestroys = (plan.safety?.facts.destroys ?? []).filter(
    (destroy) => destroy.protectedBy !== undefined,
  );
  if (stuck.size === 0 && protectedDestroys.length === 0) return { plan, skipped: [] };
  const changes = new Map(plan.changes.map((change) => [change.address, change]));
  for (const destroy of protectedDestroys) {
    const change = changes.get(destroy.address);
    if (change === undefined || stuck.has(keyOf(change))) continue;
    const verb = destroy.op === 'replace' ? 'replacing' : 'deleting';
    stuck.set(keyOf(change), {
      kind: change.kind,
      name: change.name,
      reason: PROTECTED_REASON,
      message: `protect: true forbids ${verb} ${destroy.address} (${destroy.reason}); to release it, set protect: false on its entry (restoring the entry if it was removed) and let that apply first`,
      ...(change.source ? { source: change.source } : {}),
    });
  }
  if (stuck.size === 0) return { plan, skipped: [] };

  const { plan: rest, withheld } = planWithout(plan, (action) => stuck.has(keyOf(action)), {
    wholeEntries: true,
  });
  const byKey = new Map(plan.actions.map((action) => [action.key, action]));
  const skipped = [...stuck.values()];
  const waiting = new Set<string>();
  for (const { action, cause } of withheld) {
    const key = keyOf(action);
    if (stuck.has(key) || waiting.has(key)) continue;
    waiting.add(key);
    const root = byKey.get(cause) as Action;
    const waitsFor = `${root.kind}.${root.name}`;
    skipped.push({
      kind: action.kind,
      name: action.name,
      reason: WAITS_FOR_SKIPPED_REASON,
      message: `waits for ${waitsFor}, which is skipped`,
      ...(action.source ? { source: action.source } : {}),
      waitsFor,
    });
  }
  const gone = new Set(skipped.map(keyOf));
  const safety = plan.safety === undefined ? undefined : remainingSafety(plan.safety, rest, gone, changes);
  const refusal = safety === undefined ? plan.refusal : decideRefusal(safety);
  const { refusal: _whole, safety: _facts, ...unjudged } = rest;
  return {
    plan: {
      ...unjudged,
      errors: plan.errors.filter((error) => error.entry === undefined),
      ...(safety ? { safety } : {}),
      ...(refusal ? { refusal } : {}),
    },
    skipped,
  };
}

/** The safety facts of what remains: skipped entries destroy nothing, and their DELETEs are not sent. */
function remainingSafety(
  safety: PlanSafety,
  rest: Plan,
  gone: ReadonlySet<string>,
  changes: ReadonlyMap<string, { readonly kind: KindName; readonly name: string }>,
): PlanSafety {
  const destroys = safety.facts.destroys.filter((destroy) => {
    const change = changes.get(destroy.address);
    return change === undefined || !gone.has(keyOf(change));
  });
  // A create is a POST: its request, made when read (EntryCreate), is not made to tell.
  const deleteRequests = rest.actions.filter(
    (action) => action.op !== 'create' && action.request.method === 'DELETE',
  ).length;
  return { context: safety.context, facts: { ...safety.facts, destroys, deleteRequests } };
}

function keyOf(entry: { readonly kind: KindName; readonly name: string }): string {
  return `${entry.kind}\u0000${entry.name}`;
}
