import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { useDaemonHarness } from './daemon-harness.js';
import {
  callService,
  type LiveRule,
  listRules,
  type RuleSpec,
  rulesManifest as rulesManifestOf,
} from './daemon-process.js';

const POLICY = 'ipp_WatchSettleTestPolicy000001';
const SEED = { seed: { ip_policies: [{ id: POLICY, description: 'settle tests' }] } };
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);

/** Ten deny rules, `rule-0` … `rule-9`. */
const TEN_DENY: Record<string, RuleSpec> = Object.fromEntries(
  Array.from({ length: 10 }, (_, index) => [
    `rule-${index}`,
    { cidr: `10.20.${index}.0/24`, action: 'deny' },
  ]),
);

async function writeCounts(emulator: RunningEmulator): Promise<{ deletes: number; creates: number }> {
  const { body } = await callService(emulator, 'GET', '/_emulator/stats');
  const routes = (body as { byRoute: Record<string, number> }).byRoute;
  return {
    deletes: routes['DELETE /ip_policy_rules/{id}'] ?? 0,
    creates: routes['POST /ip_policy_rules'] ?? 0,
  };
}

const cidrs = (rules: readonly LiveRule[]): string[] => rules.map((rule) => rule.cidr).sort();

describe('edgesync watch waits for a settled file before it deletes (in process)', () => {
  const startDaemon = useDaemonHarness();

  it('deletes nothing while a writer pauses half-way through rewriting a file of deny rules, past --debounce', async () => {
    const whole = rulesManifest(TEN_DENY);
    // The default --settle; the harness's --debounce is 200 ms.
    const daemon = await startDaemon({ emulator: SEED, files: { 'manifests/rules.yaml': whole } });
    const applied = await daemon.record(1);
    const before = await listRules(daemon.emulator);
    const writesBefore = await writeCounts(daemon.emulator);
    const appliedStatus = await daemon.status();

    // The writer truncates the file, writes the first five rules, and pauses longer than --debounce:
    // the daemon reads a valid file of five rules. Only then does the writer finish.
    const file = join(daemon.dir, 'manifests', 'rules.yaml');
    const cut = whole.indexOf('  rule-5:');
    const writer = await open(file, 'w');
    await daemon.change(
      async () => {
        await writer.write(whole.slice(0, cut));
        await writer.sync();
      },
      (record) => (record.plan?.summary.changes ?? []).includes('ip_policy_rules.rule-9'),
    );
    const halfRead = await daemon.status();
    await daemon.change(
      async () => {
        await writer.write(whole.slice(cut));
        await writer.close();
      },
      (record) => record.manifests.desired?.hash === appliedStatus.desired_hash,
    );
    const whole2 = await daemon.status();
    const after = await listRules(daemon.emulator);
    const writesAfter = await writeCounts(daemon.emulator);

    expect(applied.lastReconcile?.result).toBe('applied');
    expect(before).toHaveLength(10);
    expect(writesAfter).toEqual(writesBefore);
    expect(after.map((rule) => rule.id).sort()).toEqual(before.map((rule) => rule.id).sort());
    expect(halfRead.last_plan?.summary.delete).toBe(5);
    expect(halfRead.last_reconcile?.result).toBe('settling');
    expect(halfRead.settle?.held_deletes).toHaveLength(5);
    expect(halfRead.settle?.settled).toBe(false);
    expect(whole2.last_reconcile?.result).toBe('in-sync');
    expect(whole2.settle?.held_deletes).toEqual([]);
  });

  it('sends a create at once and the delete of the same edit once the manifests read the same over --settle', async () => {
    const daemon = await startDaemon({
      emulator: SEED,
      settleMs: 2_000,
      files: {
        'manifests/rules.yaml': rulesManifest({
          keep: { cidr: '192.0.2.0/24' },
          old: { cidr: '198.51.100.0/24' },
        }),
      },
    });
    await daemon.record(1);
    expect(await listRules(daemon.emulator)).toHaveLength(2);

    await daemon.change(() =>
      daemon.write(
        'manifests/rules.yaml',
        rulesManifest({ keep: { cidr: '192.0.2.0/24' }, new: { cidr: '203.0.113.0/24' } }),
      ),
    );
    const settling = await daemon.status();
    const during = await listRules(daemon.emulator);
    const next = daemon.records.length + 1;
    await daemon.advance(2_000);
    await daemon.record(next);
    const settled = await daemon.status();
    const after = await listRules(daemon.emulator);

    expect(settling.last_reconcile?.result).toBe('settling');
    expect(settling.settle).toMatchObject({
      period_ms: 2000,
      settled: false,
      held_deletes: ['ip_policy_rules.old'],
    });
    expect(cidrs(during)).toEqual(['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24']);
    expect(settled.last_reconcile).toMatchObject({ trigger: 'settle', result: 'applied' });
    expect(settled.settle).toMatchObject({ settled: true, held_deletes: [] });
    expect(cidrs(after)).toEqual(['192.0.2.0/24', '203.0.113.0/24']);
  });

  it('with --settle 0s deletes at once, as before', async () => {
    const daemon = await startDaemon({
      emulator: SEED,
      settleMs: 0,
      files: {
        'manifests/rules.yaml': rulesManifest({
          keep: { cidr: '192.0.2.0/24' },
          old: { cidr: '198.51.100.0/24' },
        }),
      },
    });
    await daemon.record(1);

    await daemon.change(() =>
      daemon.write('manifests/rules.yaml', rulesManifest({ keep: { cidr: '192.0.2.0/24' } })),
    );
    const next = await daemon.status();

    expect(next.last_reconcile).toMatchObject({ trigger: 'change', result: 'applied' });
    expect(next.settle).toMatchObject({ period_ms: 0, settled: true, held_deletes: [] });
    expect((await listRules(daemon.emulator)).map((rule) => rule.cidr)).toEqual(['192.0.2.0/24']);
  });
});
