import { describe, it } from 'vitest';
import { propertyRuns } from '../support/property-runs.js';
import { checkSavedPlanProperty } from './saved-plan-property.js';

/** Each case plans and applies against an emulator: about a second under load. */
const RUNS = propertyRuns({ small: 16, large: 400 });

describe('apply --plan of an edited saved plan (fast-check, in process against the emulator)', () => {
  it(
    'refuses with nothing sent, or sends exactly the plan the manifests and the account give now',
    async () => {
      await checkSavedPlanProperty(RUNS, 28);
    },
    60_000 + RUNS * 2_000,
  );
});
