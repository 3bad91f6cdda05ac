import type { Drafts } from '../drafts.js';
import type { PlanError } from '../plan.js';
import type { PlanInputs } from '../plan-inputs.js';
import { topologicalPositions } from '../topological-order.js';
import { DependencyEdges, type Edge } from './dependency-edges.js';
import { freeBeforeTaking } from './free-keys-before-taking.js';
import { moveReferencesBeforeDeletes } from './move-references-before-deletes.js';
import { neverOpenGuards } from './never-open-guards.js';
import { neverWidenAccess } from './never-widen-access.js';
import { orderReplacements } from './order-replacements.js';
import type { ActionFacts, OrderingFacts } from './ordering-facts.js';
import { switchPoliciesBetweenPhases } from './switch-policies-between-phases.js';
import { waitForCreatedIds } from './wait-for-created-ids.js';

/** What the ordering rules decided: every action's dependencies, and what they found wrong. */
export interface Dependencies {
  readonly edges: DependencyEdges;
  /** Deletes the service would refuse (rule 2). */
  readonly errors: readonly PlanError[];
  /** The keys of actions that wait on each other in a cycle, when the edges hold one (rule 8 breaks it). */
  readonly cycle: readonly string[] | undefined;
  /** Otherwise the positions of the drafted actions in an order the edges allow (topologicalPositions). */
  readonly order: Int32Array | undefined;
  /** A rule that moves while an endpoint switches policy lists, which rule 5 cannot place (rule 8 splits it). */
  readonly straddling: ActionFacts | undefined;
}

/**
 * The fourth phase: the dependency edges of the drafted actions, by ordering
 * rules 1 to 7 of docs/plan.md, from the drafts and their ordering facts.
 * Each rule returns the edges it found, and they are gathered here, in the
 * rules' order. `parked`: the edges a parked move brings with it (rule 8,
 * park-moves.ts), none before a move is parked. Rules 1 and 2 run first,
 * because rule 3 skips a freer that already waits for its taker (the edges
 * found before it); rules 3 and 7 are given the hostports that change hands
 * (Drafts.takeovers). Whether the edges hold a cycle, and a move rule 5
 * cannot place, are what rule 8 (parking) asks next.
 */
export function decideDependencies(
  drafts: Drafts,
  facts: OrderingFacts,
  inputs: PlanInputs,
  parked: readonly Edge[],
): Dependencies {
  const created = waitForCreatedIds(drafts.actions, inputs);
  const references = moveReferencesBeforeDeletes(facts, inputs, drafts.claims);
  const policySwitch = switchPoliciesBetweenPhases(facts);
  const earlier = new DependencyEdges([parked, created, references.edges]);
  const edges = new DependencyEdges(
    [
      freeBeforeTaking(facts, drafts.takeovers, earlier),
      orderReplacements(facts, drafts.replacements, drafts.takeovers),
      neverWidenAccess(facts),
      neverOpenGuards(facts),
      policySwitch.edges,
    ],
    earlier,
  );
  const sorted = topologicalPositions(drafts.actions, (action) => edges.of(action));
  return {
    edges,
    errors: references.errors,
    cycle: sorted.ok ? undefined : sorted.cycle,
    order: sorted.ok ? sorted.positions : undefined,
    straddling: policySwitch.straddling,
  };
}
