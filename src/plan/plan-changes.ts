import type { LiveState } from '../kinds/live-state.js';
import { KINDS } from '../kinds/registry.js';
import type { DesiredState } from '../manifest/desired-state.js';
import { assemblePlan } from './assemble-plan.js';
import { checkAdoptions } from './match-live.js';
import { narrowPlan, unmatchedTargets } from './narrow-plan.js';
import { orderActionsParkingMoves } from './park-moves.js';
import type { Plan } from './plan.js';
import { planModulesOnlyEntry } from './plan-modules.js';
import { planPrunes } from './plan-prunes.js';
import { planManagedEntry } from './plan-resources.js';
import { createPlanState, desiredByNameOf } from './plan-state.js';
import type { PlanOptions } from './planner-options.js';
import { kindsInReferenceOrder } from './resolve-references.js';
import { checkUniqueItems, checkUniqueKeys, matchUniqueKeys } from './unique-keys.js';

/**
 * The pure planner: what must happen for the live account to match the
 * desired state, as data. No I/O, clock or randomness: the same inputs give
 * byte-identical JSON.
 *
 * Each step adds to one shared PlanState: problems go into `errors` (the
 * plan is still built, so a person sees everything at once), changes and
 * their actions into `changes` and `actions`.
 */
export function planChanges(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  const state = createPlanState(desired, live, options, options.kinds ?? KINDS);
  // Conflicts between entries, found before anything is planned.
  const skipped = checkAdoptions(state);
  const sharingKey = checkUniqueKeys(state);
  matchUniqueKeys(state, skipped, sharingKey);
  // One entry at a time, referenced kinds first so names resolve to IDs already planned.
  for (const kind of kindsInReferenceOrder([...state.kindsByName.values()])) {
    for (const entry of desired.entries) {
      if (entry.kind !== kind.name || skipped.has(entry)) continue;
      if (kind.ownership === 'metadata') planManagedEntry(state, kind, entry);
      else planModulesOnlyEntry(state, kind, entry);
    }
  }
  planPrunes(state);
  checkUniqueItems(state);
  // Dependencies are decided once every action is known: the rules relate actions of different entries.
  orderActionsParkingMoves(state);
  const { changes, actions } = narrowPlan(state.changes, state.actions, options, state.errors);
  const targets = options.targets ?? [];
  // The known addresses only when targets ask: at 100,000 entries they are two lists of 100,000.
  if (targets.length > 0) {
    const owned = [...state.managed].flatMap(([kind, byName]) =>
      [...byName.keys()].map((name) => `${kind}.${name}`),
    );
    const desired = [...desiredByNameOf(state)].flatMap(([kind, byName]) =>
      [...byName.keys()].map((name) => `${kind}.${name}`),
    );
    state.errors.push(...unmatchedTargets(targets, [...desired, ...owned], state.changes));
  }
  return assemblePlan(state, changes, actions);
}
