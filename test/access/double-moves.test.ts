import { describe, expect, it } from 'vitest';
import { applyPlan, planAgainst, startAccessHarness } from './access-harness.js';
import { ACCESS_SEED, type AccountSpec, checkScenario, entriesOf, type RuleSpec } from './access-scenario.js';

/**
 * Plans that used to end in `dependency_cycle` (refused, nothing widened)
 * and now plan safely: several moves whose narrowings and widenings wait on
 * each other, broken by parking an allow or by holding a deny's target under
 * a temporary deny. Each shape is applied A → B → A, then B killed part way
 * and planned again, every answer replayed through the access checker.
 */
const r = (name: string, cidr: string, policy: 'p1' | 'p2', action: 'allow' | 'deny'): RuleSpec => ({
  name,
  cidr,
  policy,
  action,
});
const spec = (tcp: AccountSpec['tcp'], rules: RuleSpec[]): AccountSpec => ({
  rules,
  cas: [],
  tcp,
  tls: null,
  web: { mutualTls: null, oidc: false },
});

const SHAPES: Record<string, readonly [AccountSpec, AccountSpec]> = {
  'two denies in different policies trade ranges': [
    spec(['p1', 'p2'], [r('r1', '10.0.0.0/8', 'p1', 'deny'), r('r4', '2001:db8:2::/48', 'p2', 'deny')]),
    spec(['p1', 'p2'], [r('r1', '2001:db8:2::/48', 'p1', 'deny'), r('r4', '10.0.0.0/8', 'p2', 'deny')]),
  ],
  'an allow and a deny swap in each of two policies under a broader allow': [
    spec(
      ['p1', 'p2'],
      [
        r('r1', '10.1.2.0/24', 'p1', 'allow'),
        r('r2', '10.1.3.0/24', 'p1', 'deny'),
        r('r3', '10.1.3.0/24', 'p2', 'allow'),
        r('r4', '10.1.2.0/24', 'p2', 'deny'),
        r('r5', '10.0.0.0/8', 'p1', 'allow'),
      ],
    ),
    spec(
      ['p1', 'p2'],
      [
        r('r1', '10.1.3.0/24', 'p1', 'allow'),
        r('r2', '10.1.2.0/24', 'p1', 'deny'),
        r('r3', '10.1.2.0/24', 'p2', 'allow'),
        r('r4', '10.1.3.0/24', 'p2', 'deny'),
        r('r5', '10.0.0.0/8', 'p1', 'allow'),
      ],
    ),
  ],
  'two allow/deny swaps and two denies trading ranges at once': [
    spec(
      ['p1', 'p2'],
      [
        r('r1', '10.1.2.0/24', 'p1', 'allow'),
        r('r2', '10.1.3.0/24', 'p1', 'deny'),
        r('r3', '2001:db8:1::/48', 'p2', 'allow'),
        r('r4', '2001:db8:2::/48', 'p2', 'deny'),
        r('r6', '10.2.0.0/16', 'p2', 'deny'),
        r('r7', '2001:db8::/32', 'p1', 'deny'),
      ],
    ),
    spec(
      ['p1', 'p2'],
      [
        r('r1', '10.1.3.0/24', 'p1', 'allow'),
        r('r2', '10.1.2.0/24', 'p1', 'deny'),
        r('r3', '2001:db8:2::/48', 'p2', 'allow'),
        r('r4', '2001:db8:1::/48', 'p2', 'deny'),
        r('r6', '2001:db8::/32', 'p2', 'deny'),
        r('r7', '10.2.0.0/16', 'p1', 'deny'),
      ],
    ),
  ],
  'a swap while the TCP edge switches policy lists': [
    spec(
      ['p1'],
      [
        r('r1', '10.1.2.0/24', 'p1', 'allow'),
        r('r2', '10.1.3.0/24', 'p1', 'deny'),
        r('r3', '10.0.0.0/8', 'p2', 'allow'),
      ],
    ),
    spec(
      ['p1', 'p2'],
      [
        r('r1', '10.1.3.0/24', 'p1', 'allow'),
        r('r2', '10.1.2.0/24', 'p1', 'deny'),
        r('r3', '10.0.0.0/8', 'p2', 'allow'),
      ],
    ),
  ],
};

describe('moves that wait on each other plan safely', () => {
  it.each(Object.entries(SHAPES))(
    '%s: planned, no error, the rules keep their IDs',
    async (_name, [a, b]) => {
      const harness = await startAccessHarness(ACCESS_SEED);
      try {
        await applyPlan(harness, await planAgainst(harness, entriesOf(a)));
        const plan = await planAgainst(harness, entriesOf(b));
        expect(plan.errors).toEqual([]);
        // Moves are PATCHes: no rule of the manifests is deleted or replaced.
        expect(plan.changes.filter((change) => change.op === 'delete' || change.op === 'replace')).toEqual(
          [],
        );
      } finally {
        await harness.emulator.close();
      }
    },
  );

  it.each(
    Object.entries(SHAPES).flatMap(([name, [a, b]]) => [0, 0.5].map((killAt) => ({ name, a, b, killAt }))),
  )('$name: never more open than A ∪ B, killed at $killAt and planned again', async ({ a, b, killAt }) => {
    await checkScenario({ a, b, orderSeed: 3, killAt });
  });
});
