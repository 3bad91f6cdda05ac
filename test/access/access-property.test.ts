import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { propertyRuns, propertySeed } from '../support/property-runs.js';
import { type AccessScenario, checkScenario, scenarioArb } from './access-scenario.js';

/**
 * The planner's promise, tried against the emulator: random pairs of account
 * states (renames, CIDR moves, flips, swaps, adds and removes over
 * overlapping v4 and v6 ranges in two policies, module and CA changes),
 * applied A → B → A → B-killed-then-B through the real executor, every
 * answer replayed through the access checker. `npm test` runs a few;
 * `npm run test:reliability` runs 100 (test/support/property-runs.ts).
 */

/** Cases the property found once, kept as named tests. */
const CORPUS = JSON.parse(
  readFileSync(new URL('./access-corpus.json', import.meta.url), 'utf8'),
) as readonly (AccessScenario & { readonly name: string })[];

describe('access never widens: found cases', () => {
  it.each(CORPUS)('$name', async (scenario) => {
    await checkScenario(scenario);
  });
});

const RUNS = propertyRuns({ small: 3, large: 100 });
const SEED = propertySeed(13);

describe('access never widens: property', () => {
  // About a second a run: five plans and applies against a fresh emulator.
  it('random state pairs through the executor and the emulator', {
    timeout: 30_000 + RUNS * 10_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        await checkScenario(scenario);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });
});
