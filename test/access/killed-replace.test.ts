import { describe, expect, it } from 'vitest';
import type { DesiredEntry } from '../../src/manifest/desired-state.js';
import { CORP_PEM, entry, OTHER_POLICY, PARTNER_PEM, POLICY } from '../plan/builders.js';
import { applyPlan, planAgainst, readSnapshot, startAccessHarness } from './access-harness.js';
import { type AccountSnapshot, findLostValues, findWidenings, momentsOf } from './access-model.js';

/**
 * Every kind of replace, killed after each of its writes, then reverted by
 * planning the original manifest: the copy that matches the original is
 * kept (the reserved address keeps its `addr`, the CA in use stays in use),
 * nothing opens on the way back, and planning again finds nothing to do.
 */

const SEED = { ip_policies: [{ id: POLICY }, { id: OTHER_POLICY }] };

interface ReplaceCase {
  readonly name: string;
  readonly original: () => DesiredEntry[];
  readonly changed: () => DesiredEntry[];
  /** IDs of the original objects that must survive the revert. */
  readonly survivors: (start: AccountSnapshot) => string[];
}

const ruleAt = (policy: string, action: 'allow' | 'deny') => [
  entry('ip_policy_rules', 'wide', { cidr: '10.0.0.0/8', action: 'allow', ip_policy_id: POLICY }),
  entry('ip_policy_rules', 'wide-other', { cidr: '10.0.0.0/8', action: 'allow', ip_policy_id: OTHER_POLICY }),
  entry('ip_policy_rules', 'moving', { cidr: '10.1.0.0/16', action, ip_policy_id: policy }),
];
const ruleIdAt = (start: AccountSnapshot, cidr: string): string[] =>
  [...start.rules.values()].filter((raw) => raw.cidr === cidr).map((raw) => String(raw.id));

const CASES: readonly ReplaceCase[] = [
  {
    name: 'reserved address moved to another region',
    original: () => [entry('reserved_addrs', 'bastion', { description: 'bastion', region: 'us' })],
    changed: () => [entry('reserved_addrs', 'bastion', { description: 'bastion', region: 'in' })],
    survivors: (start) => [...start.reservedAddrs.keys()],
  },
  {
    name: 'CA in use by an edge given another PEM',
    original: () => [
      entry('certificate_authorities', 'corp', { ca_pem: CORP_PEM }),
      entry('https_edges', 'web', {
        hostports: ['web.example.com:443'],
        mutual_tls: { certificate_authorities: ['corp'] },
      }),
    ],
    changed: () => [
      entry('certificate_authorities', 'corp', { ca_pem: PARTNER_PEM }),
      entry('https_edges', 'web', {
        hostports: ['web.example.com:443'],
        mutual_tls: { certificate_authorities: ['corp'] },
      }),
    ],
    survivors: (start) => [...start.cas.keys()],
  },
  {
    name: 'deny rule moved to another IP policy',
    original: () => ruleAt(POLICY, 'deny'),
    changed: () => ruleAt(OTHER_POLICY, 'deny'),
    survivors: (start) => ruleIdAt(start, '10.1.0.0/16'),
  },
  {
    name: 'allow rule flipped to deny (deleted first: the CIDR is the key, nothing to keep)',
    original: () => ruleAt(POLICY, 'allow'),
    changed: () => ruleAt(POLICY, 'deny'),
    survivors: () => [],
  },
];

async function writesOfFullReplace(replace: ReplaceCase): Promise<number> {
  const harness = await startAccessHarness(SEED);
  try {
    await applyPlan(harness, await planAgainst(harness, replace.original()));
    const before = harness.writes.length;
    await applyPlan(harness, await planAgainst(harness, replace.changed()));
    return harness.writes.length - before;
  } finally {
    await harness.emulator.close();
  }
}

describe('a replace killed at every step, then reverted', () => {
  it.each(CASES)('$name', async (replace) => {
    const steps = await writesOfFullReplace(replace);
    expect(steps).toBeGreaterThan(1);

    for (let killAfter = 1; killAfter < steps; killAfter += 1) {
      const harness = await startAccessHarness(SEED);
      try {
        await applyPlan(harness, await planAgainst(harness, replace.original()));
        const start = await readSnapshot(harness);
        await applyPlan(harness, await planAgainst(harness, replace.changed()), { killAfter });
        const killed = await readSnapshot(harness);
        const from = harness.writes.length;

        const revert = await planAgainst(harness, replace.original(), { force: false });
        await applyPlan(harness, revert);
        const end = await readSnapshot(harness);
        const moments = momentsOf(killed, harness.writes.slice(from));

        const context = `killed after ${killAfter} of ${steps} writes`;
        expect(revert.errors, context).toEqual([]);
        expect(revert.refusal, context).toBeUndefined();
        for (const id of replace.survivors(start)) {
          const survived = end.reservedAddrs.has(id) || end.cas.has(id) || end.rules.has(id);
          expect(survived, `${context}: ${id} survives`).toBe(true);
        }
        expect(findLostValues(start, start, moments), context).toEqual([]);
        expect(findWidenings(killed, start, moments), context).toEqual([]);
        expect((await planAgainst(harness, replace.original())).actions, context).toEqual([]);
      } finally {
        await harness.emulator.close();
      }
    }
  });
});
