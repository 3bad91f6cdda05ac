import type { LiveState } from '../kinds/live-state.js';
import type { DesiredState } from '../manifest/desired-state.js';
import { assemblePlan } from './assemble-plan.js';
import { draftPlan } from './draft-plan.js';
import { judgeSafety } from './judge-safety.js';
import { namedIdsNotFound } from './named-ids-not-found.js';
import { narrowPlan, targetsNotFound } from './narrow-plan.js';
import { decideDependencies } from './ordering/decide-dependencies.js';
import { orderingFactsOf } from './ordering/ordering-facts.js';
import { NOTHING_PARKED, type Parked, parkOneMove } from './ordering/park-moves.js';
import { draftParkedMove } from './parked-drafts.js';
import type { Plan } from './plan.js';
import { planInputs } from './plan-inputs.js';
import type { PlanOptions } from './planner-options.js';
import { sortActions } from './sort-actions.js';

/**
 * The pure planner: what must happen for the live account to match the
 * desired state, as data. No I/O, clock or randomness: the same inputs give
 * byte-identical JSON.
 *
 * Phases, each a function of what the ones before it returned
 * (docs/architecture.md): the inputs indexed; drafts (every change and
 * action, no ordering); their ordering facts; the dependency edges of rules
 * 1-7 (docs/plan.md); parking (rule 8), which decides how to split one move
 * that the edges leave in a cycle or across a policy switch, whose actions
 * drafting builds (parked-drafts.ts), after which facts and edges are worked
 * out again for the new drafts; narrowing to `--target` and
 * `--exclude`; the assembled Plan. Problems become errors and planning goes
 * on, so that a person sees everything at once.
 */
export function planChanges(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  const inputs = planInputs(desired, live, options);
  let drafts = draftPlan(inputs);
  let parking = NOTHING_PARKED;
  let parked: Parked;
  for (;;) {
    const facts = orderingFactsOf(drafts, inputs);
    const dependencies = decideDependencies(drafts, facts, inputs, parking.edges);
    const step = parkOneMove({ drafts, facts, dependencies }, inputs, parking.parked);
    if (step.decision === undefined) {
      parked = step.ordered;
      break;
    }
    const split = draftParkedMove(drafts, step.decision, inputs);
    drafts = split.drafts;
    parking = {
      parked: new Set([...parking.parked, step.decision.move.change]),
      edges: [...parking.edges, ...split.edges],
    };
  }
  const { edges } = parked.dependencies;
  const narrowed = narrowPlan(
    parked.drafts.changes,
    parked.drafts.actions,
    (action) => edges.of(action),
    options,
  );
  const notFound = targetsNotFound(inputs, parked.drafts.changes);
  const sorted = sortActions(inputs, parked.drafts, parked.dependencies, narrowed);
  const judged = judgeSafety(inputs, parked.drafts, sorted);
  return assemblePlan(inputs, parked.drafts, sorted, judged, [
    ...parked.drafts.errors,
    ...parked.dependencies.errors,
    ...narrowed.errors,
    ...notFound,
    ...namedIdsNotFound(inputs),
  ]);
}
