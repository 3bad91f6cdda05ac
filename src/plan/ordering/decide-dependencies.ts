import type { Drafts } from '../drafts.js';
import type { PlanError } from '../plan.js';
import type { PlanInputs } from '../plan-inputs.js';
import { DependencyEdges } from './dependency-edges.js';
import { freeBeforeTaking } from './free-keys-before-taking.js';
import { moveReferencesBeforeDeletes } from './move-references-before-deletes.js';
import { neverOpenGuards } from './never-open-guards.js';
import { neverWidenAccess } from './never-widen-access.js';
import { orderReplacements } from './order-replacements.js';
import type { OrderingFacts } from './ordering-facts.js';
import { switchPoliciesBetweenPhases } from './switch-policies-between-phases.js';
import { waitForCreatedIds } from './wait-for-created-ids.js';

/** What the ordering rules decided: every action's dependencies, and what they found wrong. */
export interface Dependencies {
  readonly edges: DependencyEdges;
  /** Deletes the service would refuse (rule 2). */
  readonly errors: readonly PlanError[];
}

/**
 * The fourth phase: the dependency edges of the drafted actions, by ordering
 * rules 1 to 7 of docs/plan.md, from the drafts and their ordering facts.
 * Each rule returns the edges it found, and they are gathered here, in the
 * rules' order. `parked`: the edges a parked move brings with it (rule 8,
 * park-moves.ts), none before a move is parked. Rules 1 and 2 run first,
 * because rule 3 skips a freer that already waits for its taker (the edges
 * found before it); rules 3 and 7 are given the hostports that change hands
 * (Drafts.takeovers).
 */
export function decideDependencies(
  drafts: Drafts,
  facts: OrderingFacts,
  inputs: PlanInputs,
  parked: DependencyEdges,
): Dependencies {
  const created = waitForCreatedIds(drafts.actions);
  const references = moveReferencesBeforeDeletes(facts, inputs, drafts.claims);
  const earlier = new DependencyEdges(parked, [created, references.edges]);
  const edges = new DependencyEdges(earlier, [
    freeBeforeTaking(facts, drafts.takeovers, earlier),
    orderReplacements(facts, drafts.replacements, drafts.takeovers),
    neverWidenAccess(facts),
    neverOpenGuards(facts),
    switchPoliciesBetweenPhases(facts),
  ]);
  return { edges, errors: references.errors };
}
