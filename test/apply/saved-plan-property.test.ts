import { describe, it } from 'vitest';
import { checkSavedPlanProperty } from './saved-plan-property.js';

describe('apply --plan of an edited saved plan (fast-check, in process against the emulator)', () => {
  it('refuses with nothing sent, or sends exactly the plan the manifests and the account give now', async () => {
    await checkSavedPlanProperty(40, 28);
  }, 120_000);
});
