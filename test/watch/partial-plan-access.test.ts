import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredEntry } from '../../src/manifest/desired-state.js';
import type { Plan } from '../../src/plan/plan.js';
import { holdDeletes } from '../../src/watch/reconcile/desired-settling.js';
import { planWithout } from '../../src/watch/reconcile/plan-without.js';
import {
  type AccessHarness,
  applyPlan,
  planAgainst,
  readSnapshot,
  shuffledPlan,
  startAccessHarness,
} from '../access/access-harness.js';
import { findLostValues, findWidenings, momentsOf } from '../access/access-model.js';
import { ACCESS_SEED, entriesOf, scenarioArb } from '../access/access-scenario.js';
import { propertyRuns, propertySeed } from '../support/property-runs.js';
import { seededRandom } from '../support/seeded-random.js';

/**
 * What the daemon applies of a plan is a part of it: the plan without the
 * entries it skips and what waits for them, and, while the manifests have
 * not settled, without its deletes and what waits for those. Tried against
 * the access model of test/access: random pairs of account states A → B
 * (rules over overlapping ranges and two policies, flips, moves, swaps,
 * module and CA changes), the daemon's reconciles of B applied through the
 * real executor in a random order the dependencies allow, every answer
 * replayed: nothing opens that both A and B keep closed, and no value both
 * hold is lost, while entries stay skipped, while deletes wait, and after.
 */

const RUNS = propertyRuns({ small: 2, large: 40 });
const SEED = propertySeed(29);

async function applied(harness: AccessHarness, plan: Plan, random: () => number): Promise<void> {
  const result = await applyPlan(harness, shuffledPlan(plan, random), { concurrency: 1 });
  expect(result.actions.filter((action) => action.outcome !== 'done')).toEqual([]);
}

describe('a plan applied in part, as the daemon does, never widens access', () => {
  it('skipped entries, held deletes, then the settled reconcile, then the entries unstuck', {
    timeout: 30_000 + RUNS * 10_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, fc.integer({ min: 1, max: 1_000_000 }), async (scenario, stuckSeed) => {
        const harness = await startAccessHarness(ACCESS_SEED);
        try {
          const random = seededRandom(scenario.orderSeed);
          const a = entriesOf(scenario.a);
          const b = entriesOf(scenario.b);
          await applied(harness, await planAgainst(harness, a), random);
          const stateA = await readSnapshot(harness);
          const from = harness.writes.length;

          // About one entry in three is stuck for the first two reconciles of B.
          const pick = seededRandom(stuckSeed);
          const stuck = new Set(
            [...b, ...a]
              .filter(() => pick() < 0.3)
              .map((entry: DesiredEntry) => `${entry.kind}.${entry.name}`),
          );
          const withoutStuck = (plan: Plan): Plan =>
            planWithout(plan, (action) => stuck.has(`${action.kind}.${action.name}`), { wholeEntries: true })
              .plan;
          // B just written: the stuck entries skipped, the deletes held.
          await applied(harness, holdDeletes(withoutStuck(await planAgainst(harness, b))).plan, random);
          // B settled: the deletes go, the stuck entries still wait.
          await applied(harness, withoutStuck(await planAgainst(harness, b)), random);
          // The stuck entries freed: B whole.
          await applied(harness, await planAgainst(harness, b), random);
          const stateB = await readSnapshot(harness);
          const moments = momentsOf(stateA, harness.writes.slice(from));

          expect((await planAgainst(harness, b)).actions).toEqual([]);
          expect(findWidenings(stateA, stateB, moments)).toEqual([]);
          expect(findLostValues(stateA, stateB, moments)).toEqual([]);
        } finally {
          await harness.emulator.close();
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });
});
