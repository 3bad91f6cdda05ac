import { describe, expect, it } from 'vitest';
import type { ReconcileRecord } from '../../src/watch/reconcile/reconcile-record.js';
import { type DaemonHarness, useDaemonHarness } from './daemon-harness.js';
import { listRules, type RuleSpec, rulesManifest as rulesManifestOf } from './daemon-process.js';

const POLICY = 'ipp_SettleClockTestPolicy000001';
const SEED = { seed: { ip_policies: [{ id: POLICY, description: 'settle clocks' }] } };
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);
const BOTH = { keep: { cidr: '192.0.2.0/24' }, old: { cidr: '198.51.100.0/24', action: 'deny' } };
const KEEP = { keep: { cidr: '192.0.2.0/24' } };

/** The rules of another file of the same kind, its description changed on each write. */
const churnRules = (round: number): string =>
  rulesManifest({ churn: { cidr: '203.0.113.0/24', description: `round ${round}` } });
/** A file of another kind, changed on each write. */
const churnAddresses = (round: number): string =>
  `version: 1\nreserved_addrs:\n  bastion:\n    description: round ${round}\n`;

const hasOld = async (daemon: DaemonHarness): Promise<boolean> =>
  (await listRules(daemon.emulator)).some((rule) => rule.cidr === '198.51.100.0/24');

/** The run that deleted `old`: its plan deletes it, and it held nothing back. */
function deletedIn(records: readonly ReconcileRecord[]): ReconcileRecord | undefined {
  return records.find(
    (record) =>
      record.plan?.changes.some(
        (change) => change.address === 'ip_policy_rules.old' && change.op === 'delete',
      ) === true &&
      !record.settle.heldDeletes.includes('ip_policy_rules.old') &&
      record.run?.outcome.result === 'applied',
  );
}

/**
 * The settle clocks of the daemon, in process against the emulator, on a
 * clock the test moves: a delete waits until its entry's absence has been
 * quiet for --settle on the files that could hold it, and no longer than
 * --settle-max however steadily such files change.
 */
describe('edgesync watch: each delete has its own settle clock (in process)', () => {
  const startDaemon = useDaemonHarness();

  it('sends the delete by --settle-max while another file of the same kind keeps changing, and says why', async () => {
    const daemon = await startDaemon({
      emulator: SEED,
      settleMs: 2_000,
      settleMaxMs: 8_000,
      files: { 'manifests/rules.yaml': rulesManifest(BOTH), 'manifests/more.yaml': churnRules(0) },
    });
    await daemon.record(1);
    const removed = await daemon.change(() => daemon.write('manifests/rules.yaml', rulesManifest(KEEP)));
    const since = removed.settle.tracked.find((tracked) => tracked.address === 'ip_policy_rules.old')?.since;

    // A file of rules rewritten every second: it could be receiving `old`, so its clock never gets a quiet --settle.
    for (let round = 1; round <= 20 && (await hasOld(daemon)); round += 1) {
      await daemon.change(() => daemon.write('manifests/more.yaml', churnRules(round)));
      await daemon.advance(800);
    }
    const deleting = deletedIn(daemon.records);
    const said = daemon.logs.find((line) => line.msg?.startsWith('deletes sent at --settle-max'));

    const bound = (since ?? 0) + 8_000;
    const runs = daemon.records.filter((record) => record.run !== null && record.runs > removed.runs);
    const startedAt = (record: ReconcileRecord): number => record.run?.startedAt ?? 0;
    const heldBefore = runs.filter((record) => startedAt(record) < bound);
    // The first run at or past the bound that read the manifests valid (one that read more.yaml half written sends nothing).
    const firstPast = runs.find((record) => startedAt(record) >= bound && record.manifests.valid === true);
    const seen = runs.map((record) => [startedAt(record) - (since ?? 0), record.run?.outcome.result]);

    expect(removed.settle.heldDeletes).toEqual(['ip_policy_rules.old']);
    expect(await hasOld(daemon)).toBe(false);
    expect(since).toBeDefined();
    // Held by every run before --settle-max of absence, though they ran every 800 ms; sent by the first past it.
    expect(heldBefore.length, JSON.stringify(seen)).toBeGreaterThanOrEqual(5);
    expect(
      heldBefore.filter((record) => !record.settle.heldDeletes.includes('ip_policy_rules.old')),
      JSON.stringify(seen),
    ).toEqual([]);
    expect(firstPast, JSON.stringify(seen)).toBe(deleting);
    expect(said).toMatchObject({ deletes: ['ip_policy_rules.old'], settleMaxMs: 8_000 });
  });

  it('lets a file of another kind change as it will: the delete goes one --settle after its own last change', async () => {
    const daemon = await startDaemon({
      emulator: SEED,
      settleMs: 2_000,
      settleMaxMs: 3_600_000,
      files: { 'manifests/rules.yaml': rulesManifest(BOTH), 'manifests/addrs.yaml': churnAddresses(0) },
    });
    await daemon.record(1);
    const removed = await daemon.change(() => daemon.write('manifests/rules.yaml', rulesManifest(KEEP)));
    const changedAt = removed.settle.tracked[0]?.changedAt ?? 0;

    for (let round = 1; round <= 10 && (await hasOld(daemon)); round += 1) {
      await daemon.change(() => daemon.write('manifests/addrs.yaml', churnAddresses(round)));
      await daemon.advance(300);
    }
    const deleting = deletedIn(daemon.records);

    expect(await hasOld(daemon)).toBe(false);
    expect((deleting?.run?.startedAt ?? 0) - changedAt).toBeGreaterThanOrEqual(2_000);
    expect((deleting?.run?.startedAt ?? 0) - changedAt).toBeLessThan(3_000);
    expect(daemon.logs.some((line) => line.msg?.startsWith('deletes sent at --settle-max'))).toBe(false);
  });

  it('starts the clock again when the entry is removed, restored and removed within one debounce, though the file reads as before', async () => {
    const daemon = await startDaemon({
      emulator: SEED,
      settleMs: 5_000,
      files: { 'manifests/rules.yaml': rulesManifest(BOTH) },
    });
    await daemon.record(1);
    const removed = await daemon.change(() => daemon.write('manifests/rules.yaml', rulesManifest(KEEP)));
    await daemon.advance(3_000);
    const from = daemon.records.length + 1;

    // Three writes, each seen by the watcher, 50 ms apart: less than the 200 ms debounce, so one run follows.
    for (const manifest of [rulesManifest(BOTH), rulesManifest(KEEP)]) {
      const seen = daemon.clock.whenPending(daemon.debounceMs);
      await daemon.write('manifests/rules.yaml', manifest);
      await seen;
      await daemon.advance(50);
    }
    await daemon.advance(daemon.debounceMs);
    const after = await daemon.record(from);
    const lastChange = after.settle.tracked[0]?.changedAt ?? 0;
    // Past the period counted from the first removal, not from the last write.
    await daemon.advance(2_500);
    const stillThere = await hasOld(daemon);
    await daemon.advance(3_000);
    await daemon.record(from, (record) => record.run?.outcome.result === 'applied');

    expect(after.manifests.desired?.hash).toBe(removed.manifests.desired?.hash);
    expect(lastChange).toBeGreaterThan(removed.settle.tracked[0]?.changedAt ?? 0);
    expect(stillThere).toBe(true);
    expect(await hasOld(daemon)).toBe(false);
  });

  it('holds deletes while a file does not parse, and past --settle-max reports it: not ready, with the reason, and the held-deletes gauge', async () => {
    const daemon = await startDaemon({
      emulator: SEED,
      settleMs: 1_000,
      settleMaxMs: 4_000,
      files: { 'manifests/rules.yaml': rulesManifest(BOTH), 'manifests/other.yaml': churnRules(0) },
    });
    await daemon.record(1);
    await daemon.change(() => daemon.write('manifests/rules.yaml', rulesManifest(KEEP)));
    await daemon.change(() =>
      daemon.write('manifests/other.yaml', 'version: 1\nip_policy_rules: [unclosed\n'),
    );
    await daemon.advance(5_000);
    const stale = await daemon.change(() =>
      daemon.write('manifests/other.yaml', 'version: 1\nip_policy_rules: [still unclosed\n'),
    );
    const status = await daemon.status();
    const samples = await daemon.metrics();
    const gauge = (name: string) => samples.find((sample) => sample.name === name)?.value;
    const warned = daemon.logs.find((line) => line.msg?.startsWith('deletes held past --settle-max'));

    expect(await hasOld(daemon)).toBe(true);
    expect(stale.settle.overdue.map((tracked) => tracked.address)).toEqual(['ip_policy_rules.old']);
    expect(status.ready).toBe(false);
    expect(status.not_ready_reason).toContain(
      '1 delete(s) held for over --settle-max (4 s), as the manifests do not read valid: ip_policy_rules.old',
    );
    expect(status.settle?.overdue).toEqual(['ip_policy_rules.old']);
    expect(gauge('edgesync_held_deletes')).toBe(1);
    expect(gauge('edgesync_held_deletes_overdue')).toBe(1);
    expect(warned).toMatchObject({
      deletes: ['ip_policy_rules.old'],
      reason: 'the manifests do not read valid',
    });
  });
});
