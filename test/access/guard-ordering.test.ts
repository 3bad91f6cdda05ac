import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/plan.js';
import { applyPlan, planAgainst, readSnapshot, startAccessHarness } from './access-harness.js';
import { findWidenings, momentsOf } from './access-model.js';
import { ACCESS_SEED, type AccountSpec, checkScenario, entriesOf } from './access-scenario.js';

/**
 * The HTTPS edge's mutual TLS is one PATCH that swaps the CAs it accepts at
 * once; a route's OIDC stops every certificate. When one plan does both, the
 * route must be closed by OIDC before the edge accepts a CA it did not: the
 * case the long property found with seeds 1 and 2 (a kill after the CA's
 * create left the re-plan free to PATCH first).
 */
const NO_RULES = { rules: [], tcp: null, tls: null } as const;
const A: AccountSpec = {
  ...NO_RULES,
  cas: [{ name: 'partner', pem: 'corp' }],
  web: { mutualTls: ['partner'], oidc: false },
};
const B: AccountSpec = {
  ...NO_RULES,
  cas: [
    { name: 'corp', pem: 'partner' },
    { name: 'partner', pem: 'corp' },
  ],
  web: { mutualTls: ['corp'], oidc: true },
};

const byModule = (plan: Plan, module: string) =>
  plan.actions.filter((action) => action.change.endsWith(`.${module}`));

describe('guard ordering on one HTTPS edge', () => {
  it("a mutual TLS PATCH that accepts a new CA waits for the OIDC PUT that closes the edge's route", async () => {
    const harness = await startAccessHarness(ACCESS_SEED);
    try {
      await applyPlan(harness, await planAgainst(harness, entriesOf(A)));
      // The CA already exists, as after a kill that landed only its create.
      const withCa = { ...A, cas: B.cas };
      await applyPlan(harness, await planAgainst(harness, entriesOf(withCa)));
      const plan = await planAgainst(harness, entriesOf(B));
      expect(plan.errors).toEqual([]);
      const [mutualTls] = byModule(plan, 'mutual_tls');
      const [oidc] = byModule(plan, 'oidc');
      if (mutualTls === undefined || oidc === undefined) throw new Error('module actions missing');
      expect(mutualTls.dependsOn).toContain(oidc.key);
    } finally {
      await harness.emulator.close();
    }
  });

  it('a route losing OIDC waits for the mutual TLS PATCH (the opening after every closing)', async () => {
    const harness = await startAccessHarness(ACCESS_SEED);
    try {
      await applyPlan(harness, await planAgainst(harness, entriesOf(B)));
      const plan = await planAgainst(
        harness,
        entriesOf({ ...B, web: { mutualTls: ['partner'], oidc: false } }),
      );
      const [mutualTls] = byModule(plan, 'mutual_tls');
      const [oidc] = byModule(plan, 'oidc');
      if (mutualTls === undefined || oidc === undefined) throw new Error('module actions missing');
      expect(oidc.op).toBe('delete-module');
      expect(oidc.dependsOn).toContain(mutualTls.key);
      expect(mutualTls.dependsOn).not.toContain(oidc.key);
    } finally {
      await harness.emulator.close();
    }
  });

  it('the checker sees the old order widen: the PATCH first lets the new CA through the route', async () => {
    const harness = await startAccessHarness(ACCESS_SEED);
    try {
      await applyPlan(harness, await planAgainst(harness, entriesOf(A)));
      await applyPlan(harness, await planAgainst(harness, entriesOf({ ...A, cas: B.cas })));
      const start = await readSnapshot(harness);
      const plan = await planAgainst(harness, entriesOf(B));
      const [mutualTls] = byModule(plan, 'mutual_tls');
      const [oidc] = byModule(plan, 'oidc');
      if (mutualTls === undefined || oidc === undefined) throw new Error('module actions missing');
      // The old planner's order: the PATCH, then the PUT.
      const from = harness.writes.length;
      await applyPlan(harness, { ...plan, actions: [{ ...mutualTls, dependsOn: [] }] });
      await applyPlan(harness, { ...plan, actions: [{ ...oidc, dependsOn: [] }] });
      const end = await readSnapshot(harness);
      const widenings = findWidenings(start, end, momentsOf(start, harness.writes.slice(from)));
      expect(widenings.map((widening) => widening.subject)).toEqual([
        expect.stringMatching(/^route .* guard$/),
      ]);
    } finally {
      await harness.emulator.close();
    }
  });

  it('every kill point of A → B, then B planned again, stays within A ∪ B', async () => {
    // Three writes (the new CA's create, the OIDC PUT, the PATCH): a kill after each.
    for (const killAt of [0, 0.5, 1]) await checkScenario({ a: A, b: B, orderSeed: 1, killAt });
  });
});
