import { afterEach, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../src/api/edge-api.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import type { Action } from '../../src/plan/plan.js';
import { handPlan, seededRandom } from '../apply/hand-plan.js';
import { entry, POLICY } from '../plan/builders.js';
import {
  ACCESS_OWNER,
  type AccessHarness,
  applyPlan,
  planAgainst,
  readSnapshot,
  shuffledPlan,
  startAccessHarness,
} from './access-harness.js';
import { findLostValues, findWidenings, momentsOf } from './access-model.js';

/**
 * The three access-widening cases the old planner had, replayed in the order the planner used to
 * answer them: the checker must see each break. The planner's own plans for
 * the same changes are checked alongside and must not break.
 */

let harness: AccessHarness | undefined;
afterEach(async () => {
  await harness?.emulator.close();
  harness = undefined;
});

const SEED = { ip_policies: [{ id: POLICY }] };
const metadata = (name: string): string => encodeMetadata(undefined, { owner: ACCESS_OWNER, name });

function step(key: string, request: ApiRequest): Action {
  return {
    key,
    op: request.method === 'POST' ? 'create' : request.method === 'DELETE' ? 'delete' : 'update',
    kind: request.path.startsWith('/reserved_addrs') ? 'reserved_addrs' : 'ip_policy_rules',
    name: key,
    change: key,
    request,
    sensitivePaths: [],
    dependsOn: [],
  };
}

const rulePost = (name: string, cidr: string, action: 'allow' | 'deny'): ApiRequest => ({
  method: 'POST',
  path: '/ip_policy_rules',
  body: { cidr, action, ip_policy_id: POLICY, metadata: metadata(name) },
});

const ruleEntry = (name: string, cidr: string, action: 'allow' | 'deny') =>
  entry('ip_policy_rules', name, { cidr, action, ip_policy_id: POLICY });

async function idOf(h: AccessHarness, cidr: string): Promise<string> {
  const snapshot = await readSnapshot(h);
  const found = [...snapshot.rules.values()].find((raw) => raw.cidr === cidr);
  if (found === undefined) throw new Error(`no rule for ${cidr}`);
  return String(found.id);
}

/** Applies `plan` one action at a time and returns the widenings between the states before and after. */
async function widenings(h: AccessHarness, run: () => Promise<unknown>): Promise<string[]> {
  const start = await readSnapshot(h);
  const from = h.writes.length;
  await run();
  const end = await readSnapshot(h);
  const moments = momentsOf(start, h.writes.slice(from));
  expect(moments.at(-1)).toEqual(end);
  return findWidenings(start, end, moments).map((w) => `${w.moment} ${w.subject} ${w.opening}`);
}

describe('case 1: renaming a deny rule', () => {
  const before = [ruleEntry('wide', '10.70.0.0/16', 'allow'), ruleEntry('old-name', '10.70.1.0/24', 'deny')];
  const after = [ruleEntry('wide', '10.70.0.0/16', 'allow'), ruleEntry('new-name', '10.70.1.0/24', 'deny')];

  it('the old delete-then-create order opens the /24: the checker says so', async () => {
    harness = await startAccessHarness(SEED);
    const h = harness;
    await applyPlan(h, await planAgainst(h, before));
    const oldId = await idOf(h, '10.70.1.0/24');
    const oldPlan = handPlan([
      step('delete:old-name', { method: 'DELETE', path: `/ip_policy_rules/${oldId}` }),
      step('create:new-name', rulePost('new-name', '10.70.1.0/24', 'deny')),
    ]);

    const found = await widenings(h, () => applyPlan(h, oldPlan, { concurrency: 1 }));

    expect(found).toEqual([`1 ip_policy ${POLICY} 10.70.1.0 – 10.70.1.255`]);
  });

  it('the planner renames the rule with one PATCH, within the default --max-destroy, and opens nothing', async () => {
    harness = await startAccessHarness(SEED);
    const h = harness;
    await applyPlan(h, await planAgainst(h, before));
    const id = await idOf(h, '10.70.1.0/24');

    const plan = await planAgainst(h, after, { force: false, allowEmpty: false });
    const found = await widenings(h, () => applyPlan(h, plan));

    expect(plan.refusal).toBeUndefined();
    expect(plan.actions.map((action) => `${action.request.method} ${action.request.path}`)).toEqual([
      `PATCH /ip_policy_rules/${id}`,
    ]);
    expect(plan.changes[0]?.reason).toBe('renamed from ip_policy_rules.old-name');
    expect(found).toEqual([]);
    expect(await idOf(h, '10.70.1.0/24')).toBe(id);
  });
});

describe('case 2: moving CIDRs with PATCH', () => {
  const before = [
    ruleEntry('wide-70', '10.70.0.0/16', 'allow'),
    ruleEntry('mover-70', '10.70.1.0/24', 'deny'),
    ruleEntry('mover-80', '10.80.1.0/24', 'deny'),
  ];

  it('the old unordered PATCHes open the moved-from and moved-to ranges: the checker says so', async () => {
    harness = await startAccessHarness(SEED);
    const h = harness;
    await applyPlan(h, await planAgainst(h, before));
    const mover70 = await idOf(h, '10.70.1.0/24');
    const mover80 = await idOf(h, '10.80.1.0/24');
    // The order one run answered them in: the old plan tied only the taker of 10.70.1.0/24 to the PATCH freeing it.
    const oldPlan = handPlan([
      step('update:mover-70', {
        method: 'PATCH',
        path: `/ip_policy_rules/${mover70}`,
        body: { cidr: '10.70.2.0/24' },
      }),
      step('create:wide-80', rulePost('wide-80', '10.80.0.0/16', 'allow')),
      step('create:taker-70', rulePost('taker-70', '10.70.1.0/24', 'deny')),
      step('update:mover-80', {
        method: 'PATCH',
        path: `/ip_policy_rules/${mover80}`,
        body: { cidr: '10.80.2.0/24' },
      }),
    ]);

    const found = await widenings(h, () => applyPlan(h, oldPlan, { concurrency: 1 }));

    expect(found).toEqual([
      `1 ip_policy ${POLICY} 10.70.1.0 – 10.70.1.255`,
      `2 ip_policy ${POLICY} 10.70.1.0 – 10.70.1.255`,
      `2 ip_policy ${POLICY} 10.80.2.0 – 10.80.2.255`,
      `3 ip_policy ${POLICY} 10.80.2.0 – 10.80.2.255`,
    ]);
  });

  it.each([1, 2, 3, 4, 5])(
    'the planner orders the same change so that no order it allows opens anything (order %i)',
    async (seed) => {
      harness = await startAccessHarness(SEED);
      const h = harness;
      await applyPlan(h, await planAgainst(h, before));
      const after = [
        ruleEntry('wide-70', '10.70.0.0/16', 'allow'),
        ruleEntry('mover-70', '10.70.2.0/24', 'deny'),
        ruleEntry('taker-70', '10.70.1.0/24', 'deny'),
        ruleEntry('mover-80', '10.80.2.0/24', 'deny'),
        ruleEntry('wide-80', '10.80.0.0/16', 'allow'),
      ];

      const plan = await planAgainst(h, after);
      const found = await widenings(h, () =>
        applyPlan(h, shuffledPlan(plan, seededRandom(seed)), { concurrency: 1 }),
      );

      expect(plan.errors).toEqual([]);
      expect(found).toEqual([]);
      expect((await planAgainst(h, after)).actions).toEqual([]);
    },
  );
});

describe('case 3: a replace killed between create and delete, then reverted', () => {
  it('the old recovery keeps the newest copy and deletes the one that matched: the checker sees the address lost', async () => {
    harness = await startAccessHarness(SEED);
    const h = harness;
    const original = [entry('reserved_addrs', 'bastion', { description: 'bastion', region: 'us' })];
    await applyPlan(h, await planAgainst(h, original));
    const start = await readSnapshot(h);
    const [usCopy] = [...start.reservedAddrs.keys()];
    // The move to region in, killed right after its create was answered.
    await applyPlan(
      h,
      await planAgainst(h, [entry('reserved_addrs', 'bastion', { description: 'bastion', region: 'in' })]),
      {
        killAfter: 1,
      },
    );
    const killed = await readSnapshot(h);
    const inCopy = [...killed.reservedAddrs.keys()].find((id) => id !== usCopy) as string;
    const from = h.writes.length;
    // Planning the original manifest then matched the newest copy (in), replaced it and pruned the us copy.
    const oldRevert = handPlan([
      step('create:bastion', {
        method: 'POST',
        path: '/reserved_addrs',
        body: { description: 'bastion', region: 'us', metadata: metadata('bastion') },
      }),
      step('delete:bastion', { method: 'DELETE', path: `/reserved_addrs/${inCopy}` }),
      step('delete:bastion-duplicate', { method: 'DELETE', path: `/reserved_addrs/${usCopy}` }),
    ]);
    await applyPlan(h, oldRevert, { concurrency: 1 });

    const lost = findLostValues(start, start, momentsOf(killed, h.writes.slice(from)));

    expect(lost).toEqual([
      { moment: 3, value: `addr ${String(start.reservedAddrs.get(usCopy as string)?.addr)}` },
    ]);
  });
});
