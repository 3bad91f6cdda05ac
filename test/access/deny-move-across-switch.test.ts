import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyPlan, planAgainst, startAccessHarness } from './access-harness.js';
import {
  ACCESS_SEED,
  type AccessScenario,
  checkScenario,
  entriesOf,
  type RuleSpec,
} from './access-scenario.js';

/**
 * A deny rule that moves its CIDR while a TCP edge switches from one list of
 * IP policies to another: the move narrows its target (must land before the
 * switch) and widens its old range (must land after it). The planner holds
 * the target under a temporary deny around it, created before the switch
 * and deleted after the move: two extra requests, the rule keeps its ID.
 */
const CORPUS = JSON.parse(
  readFileSync(new URL('./access-corpus.json', import.meta.url), 'utf8'),
) as readonly (AccessScenario & { readonly name: string })[];
const SCENARIO = CORPUS.find((scenario) => scenario.name.startsWith('a deny rule moves while the TCP edge'));

describe('a deny rule moving while an endpoint switches IP policy lists', () => {
  it('is planned as guard create → switch → move → guard delete, the move a PATCH of the same rule', async () => {
    if (SCENARIO === undefined) throw new Error('corpus case missing');
    const harness = await startAccessHarness(ACCESS_SEED);
    try {
      await applyPlan(harness, await planAgainst(harness, entriesOf(SCENARIO.a)));
      const plan = await planAgainst(harness, entriesOf(SCENARIO.b));
      expect(plan.errors).toEqual([]);
      const guardCreate = plan.actions.find(
        (action) => action.key.endsWith('#parking-guard') && action.op === 'create',
      );
      const guardDelete = plan.actions.find(
        (action) => action.key.endsWith('#parking-guard') && action.op === 'delete',
      );
      const move = plan.actions.find((action) => action.op === 'update' && action.kind === 'ip_policy_rules');
      const policySwitch = plan.actions.find((action) => action.op === 'put-module');
      expect(guardCreate?.marker?.name).toBe('~parking.r1');
      expect(guardCreate?.request.body).toMatchObject({ cidr: '10.0.0.0/7', action: 'deny' });
      expect(move?.request.method).toBe('PATCH');
      expect(move?.request.body).toMatchObject({ cidr: '10.0.0.0/8' });
      if (!guardCreate || !guardDelete || !move || !policySwitch) throw new Error('action missing');
      expect(policySwitch.dependsOn).toContain(guardCreate.key);
      expect(move.dependsOn).toContain(policySwitch.key);
      expect(guardDelete.dependsOn).toContain(move.key);
      // The PATCH and the PUT the change needs, plus the temporary deny's create and delete.
      expect(plan.actions.map((action) => action.op).sort()).toEqual([
        'create',
        'delete',
        'put-module',
        'update',
      ]);
    } finally {
      await harness.emulator.close();
    }
  });

  // Killed after each of the four writes, then planned again: never more open than A ∪ B, converged, nothing left over.
  it.each([0.25, 0.5, 0.75, 1])('killed at %s of the plan, then planned again', async (killAt) => {
    if (SCENARIO === undefined) throw new Error('corpus case missing');
    await checkScenario({ ...SCENARIO, killAt });
  });

  it('a temporary deny left by a killed apply guards the next plan and is deleted after the move', async () => {
    if (SCENARIO === undefined) throw new Error('corpus case missing');
    const harness = await startAccessHarness(ACCESS_SEED);
    try {
      await applyPlan(harness, await planAgainst(harness, entriesOf(SCENARIO.a)));
      const plan = await planAgainst(harness, entriesOf(SCENARIO.b));
      await applyPlan(harness, plan, { killAfter: 1, concurrency: 1 });
      const again = await planAgainst(harness, entriesOf(SCENARIO.b));
      // The first write is the temporary deny (nothing else may go before the switch).
      expect(again.changes.find((change) => change.address === 'ip_policy_rules.~parking.r1')?.op).toBe(
        'delete',
      );
      // It still holds the target, so it is the guard: no new temporary deny, its delete waits for the move.
      expect(again.actions.filter((action) => action.op === 'create')).toEqual([]);
      const prune = again.actions.find((action) => action.op === 'delete');
      expect(prune?.dependsOn).toContain('update:ip_policy_rules.r1');
      await applyPlan(harness, again);
      expect((await planAgainst(harness, entriesOf(SCENARIO.b))).actions).toEqual([]);
    } finally {
      await harness.emulator.close();
    }
  });

  it('a temporary deny left by a killed apply is pruned without counting toward --max-destroy', async () => {
    if (SCENARIO === undefined) throw new Error('corpus case missing');
    const harness = await startAccessHarness(ACCESS_SEED);
    try {
      await applyPlan(harness, await planAgainst(harness, entriesOf(SCENARIO.a)));
      await applyPlan(harness, await planAgainst(harness, entriesOf(SCENARIO.b)), {
        killAfter: 1,
        concurrency: 1,
      });
      const strict = { force: false, maxDestroy: { count: 0 } } as const;
      const again = await planAgainst(harness, entriesOf(SCENARIO.b), strict);
      expect(again.changes.find((change) => change.address === 'ip_policy_rules.~parking.r1')?.op).toBe(
        'delete',
      );
      expect(again.refusal).toBeUndefined();
      expect(again.safety?.facts.destroys).toEqual([]);
      // A rule of the manifests removed in the same plan still counts, alone.
      const [kept, ...dropped] = SCENARIO.b.rules;
      if (kept === undefined || dropped.length === 0) throw new Error('scenario needs two rules');
      const fewer = await planAgainst(harness, entriesOf({ ...SCENARIO.b, rules: [kept] }), strict);
      expect(fewer.refusal?.code).toBe('max-destroy');
      expect(fewer.refusal?.message).toContain(`deletes or replaces ${dropped.length} object(s)`);
    } finally {
      await harness.emulator.close();
    }
  });

  it('to 0.0.0.0/0, which no CIDR encloses, is held by two temporary denies on its halves', async () => {
    if (SCENARIO === undefined) throw new Error('corpus case missing');
    const harness = await startAccessHarness(ACCESS_SEED);
    try {
      await applyPlan(harness, await planAgainst(harness, entriesOf(SCENARIO.a)));
      const plan = await planAgainst(harness, entriesOf(toEverything(SCENARIO.b)));
      expect(plan.errors).toEqual([]);
      const guards = plan.actions.filter((action) => action.op === 'create');
      expect(
        guards.map((action) => [action.marker?.name, (action.request.body as { cidr: string }).cidr]),
      ).toEqual([
        ['~parking.r1', '0.0.0.0/1'],
        ['~parking.r1~2', '128.0.0.0/1'],
      ]);
    } finally {
      await harness.emulator.close();
    }
    await checkScenario({ ...SCENARIO, b: toEverything(SCENARIO.b), killAt: 0.3 });
  });

  it('is refused (dependency_cycle), not planned open, when nothing is free to hold its target', async () => {
    if (SCENARIO === undefined) throw new Error('corpus case missing');
    // Rules of the account already hold both halves of 0.0.0.0/0 in the rule's policy.
    const halves: readonly RuleSpec[] = [
      { name: 'low', cidr: '0.0.0.0/1', policy: 'p1', action: 'allow' },
      { name: 'high', cidr: '128.0.0.0/1', policy: 'p1', action: 'allow' },
    ];
    const a = { ...SCENARIO.a, rules: [...SCENARIO.a.rules, ...halves] };
    const b = toEverything({ ...SCENARIO.b, rules: [...SCENARIO.b.rules, ...halves] });
    const harness = await startAccessHarness(ACCESS_SEED);
    try {
      await applyPlan(harness, await planAgainst(harness, entriesOf(a)));
      const plan = await planAgainst(harness, entriesOf(b));
      expect(plan.errors.map((error) => error.code)).toEqual(['dependency_cycle']);
      expect(plan.errors[0]?.message).toContain(
        'ip_policy_rules.r1 moves its range while an endpoint switches',
      );
    } finally {
      await harness.emulator.close();
    }
  });
});

/** The account spec with the deny r1 moved to 0.0.0.0/0. */
function toEverything(spec: AccessScenario['b']): AccessScenario['b'] {
  return {
    ...spec,
    rules: spec.rules.map((rule) => (rule.name === 'r1' ? { ...rule, cidr: '0.0.0.0/0' } : rule)),
  };
}
