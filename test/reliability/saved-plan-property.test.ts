import { describe, it } from 'vitest';
import { checkSavedPlanProperty } from '../apply/saved-plan-property.js';

describe('apply --plan of an edited saved plan, many more cases (fast-check)', () => {
  it('refuses with nothing sent, or sends exactly the plan the manifests and the account give now', async () => {
    // Another seed than npm test's: these are other cases, not the same forty again.
    await checkSavedPlanProperty(400, 2028);
  }, 900_000);
});
