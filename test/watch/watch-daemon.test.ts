import { copyFile, mkdir, rename, rm, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { differenceState } from '../../src/sync-state.js';
import type { ReconcileRecord } from '../../src/watch/reconcile/reconcile-record.js';
import { type DaemonHarness, useDaemonHarness } from './daemon-harness.js';
import {
  callService,
  type LiveRule,
  listRules,
  type RuleSpec,
  rulesManifest as rulesManifestOf,
} from './daemon-process.js';
import { sampleSum } from './prometheus-text.js';

const POLICY = 'ipp_WatchTestPolicy000000000001';
const SEED = { seed: { ip_policies: [{ id: POLICY, description: 'watch tests' }] } };
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);

function ruleWithCidr(cidr: string) {
  return (rules: LiveRule[]): LiveRule | undefined => rules.find((rule) => rule.cidr === cidr);
}

/** Moves the clock one --interval on (the resync and the background read) and waits for a record `test` accepts. */
async function afterResync(
  daemon: DaemonHarness,
  test: (record: ReconcileRecord) => boolean | Promise<boolean> = () => true,
): Promise<ReconcileRecord> {
  const next = daemon.records.length + 1;
  await daemon.advance(daemon.intervalMs);
  return daemon.record(next, test);
}

describe('edgesync watch (the daemon in process against the emulator)', () => {
  const startDaemon = useDaemonHarness();

  it('applies a written file, reverts out-of-band drift on resync, and counts it in /metrics', async () => {
    const running = await startDaemon({ emulator: SEED });
    const emulator = running.emulator;
    await running.record(1);

    await running.change(() =>
      running.write('manifests/rules.yaml', rulesManifest({ office: { cidr: '203.0.113.0/24' } })),
    );
    const created = ruleWithCidr('203.0.113.0/24')(await listRules(emulator));
    await callService(emulator, 'DELETE', `/ip_policy_rules/${created?.id}`);
    // Seen by the background full read of the next interval.
    await afterResync(running, async () => {
      const rule = ruleWithCidr('203.0.113.0/24')(await listRules(emulator));
      return rule !== undefined && rule.id !== created?.id;
    });
    const recreated = ruleWithCidr('203.0.113.0/24')(await listRules(emulator));
    const samples = await running.metrics();
    const ready = await fetch(`${running.url}/readyz`);

    expect(JSON.parse(recreated?.metadata ?? '{}')).toEqual({
      edgesync: { name: 'office', owner: 'default' },
    });
    expect(ready.status).toBe(200);
    expect(sampleSum(samples, 'edgesync_reconciles_total', { result: 'applied' })).toBeGreaterThanOrEqual(2);
    expect(
      sampleSum(samples, 'edgesync_api_requests_total', {
        method: 'POST',
        kind: 'ip_policy_rules',
        status: '201',
      }),
    ).toBeGreaterThanOrEqual(2);
    expect(sampleSum(samples, 'edgesync_manifests_valid')).toBe(1);
    expect(sampleSum(samples, 'edgesync_owned_objects', { kind: 'ip_policy_rules' })).toBe(1);
    expect(sampleSum(samples, 'edgesync_last_success_timestamp_seconds')).toBeGreaterThan(0);
  });

  it('keeps its live-state cache by its own writes: an edit of what it just created is planned without listing again', async () => {
    const running = await startDaemon({ emulator: SEED });
    const emulator = running.emulator;
    await running.record(1);
    const routes = async (): Promise<Record<string, number>> =>
      ((await callService(emulator, 'GET', '/_emulator/stats')).body as { byRoute: Record<string, number> })
        .byRoute;

    await running.change(() =>
      running.write('manifests/rules.yaml', rulesManifest({ office: { cidr: '203.0.113.0/24' } })),
    );
    const edited = await running.change(() =>
      running.write(
        'manifests/rules.yaml',
        rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'edited' } }),
      ),
    );
    const counted = await routes();

    expect(edited.lastReconcile?.result).toBe('applied');
    expect(ruleWithCidr('203.0.113.0/24')(await listRules(emulator))?.description).toBe('edited');
    // One listing, at startup; the create's answer went into the cache, so the edit read the rule by ID only.
    expect(counted['GET /ip_policy_rules']).toBe(1);
    expect(counted['POST /ip_policy_rules']).toBe(1);
    expect(counted['PATCH /ip_policy_rules/{id}']).toBe(1);
    expect(edited.lastTargetedReads).toBe(1);
  });

  it('records what tells drift from pending: an entry the account matched, moved behind its back, against an entry edited in Git', async () => {
    const running = await startDaemon({
      emulator: SEED,
      files: {
        'manifests/rules.yaml': rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'wanted' } }),
      },
    });
    const emulator = running.emulator;
    await running.record(1);
    const office = ruleWithCidr('203.0.113.0/24')(await listRules(emulator));
    const stateOf = (record: ReconcileRecord): string | undefined => {
      const entry = record.plan?.desired.entries.find((candidate) => candidate.name === 'office');
      const changed = record.plan?.changes.some((change) => change.name === 'office');
      if (entry === undefined || !changed) return undefined;
      return differenceState({ desiredUnchangedSinceInSync: record.desiredUnchangedSinceInSync(entry) });
    };

    await callService(emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, {
      description: 'changed by hand',
    });
    const drifted = await afterResync(running, (record) => stateOf(record) !== undefined);
    const edited = await running.change(() =>
      running.write(
        'manifests/rules.yaml',
        rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'edited in Git' } }),
      ),
    );

    expect(stateOf(drifted)).toBe('drift');
    expect(stateOf(edited)).toBe('pending');
    expect(ruleWithCidr('203.0.113.0/24')(await listRules(emulator))?.description).toBe('edited in Git');
  });

  it('in observe mode only reports what differs and changes nothing: a new entry is pending', async () => {
    const running = await startDaemon({
      emulator: SEED,
      mode: 'observe',
      files: { 'manifests/rules.yaml': rulesManifest({ office: { cidr: '203.0.113.0/24' } }) },
    });

    await running.record(1);
    const status = await running.status();
    await afterResync(running);
    const samples = await running.metrics();
    const rules = await listRules(running.emulator);

    expect(status.mode).toBe('observe');
    expect(status.last_reconcile?.result).toBe('pending');
    expect(status.last_plan?.changes).toEqual(['ip_policy_rules.office']);
    expect((status as { differences?: unknown }).differences).toEqual({
      pending: ['ip_policy_rules.office'],
      drift: [],
      held: [],
      skipped: [],
    });
    expect(status.last_plan?.applied).toBe(false);
    expect(sampleSum(samples, 'edgesync_drifted_objects', { kind: 'ip_policy_rules' })).toBe(1);
    expect(sampleSum(samples, 'edgesync_api_requests_total', { method: 'POST' })).toBe(0);
    expect(rules).toEqual([]);
  });

  it('keeps the last valid state while a file is broken, is not ready, resumes when fixed, and never prunes on an empty set', async () => {
    const running = await startDaemon({
      emulator: SEED,
      files: {
        'manifests/rules.yaml': rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'first' } }),
      },
    });
    const emulator = running.emulator;
    const file = 'manifests/rules.yaml';
    await running.record(1);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);

    await running.change(
      () =>
        running.write(
          file,
          `${rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'second' } })}  broken:\n    cidr: 198.51.100.7/24\n`,
        ),
      (record) => record.manifests.valid === false,
    );
    const broken = await running.status();
    const firstHash = running.records[0]?.manifests.desired?.hash;
    const readyWhileBroken = await fetch(`${running.url}/readyz`);
    const rulesWhileBroken = await listRules(emulator);

    await running.change(
      () => running.write(file, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'third' } })),
      async () => ruleWithCidr('203.0.113.0/24')(await listRules(emulator))?.description === 'third',
    );
    const fixed = ruleWithCidr('203.0.113.0/24')(await listRules(emulator));
    const readyWhenFixed = await fetch(`${running.url}/readyz`);

    await running.change(() => unlink(join(running.dir, file)));
    await afterResync(running);
    const rulesAfterDelete = await listRules(emulator);
    const statusAfterDelete = await running.status();

    expect(broken.manifest_errors.length).toBeGreaterThan(0);
    // The desired state enforced meanwhile is the last valid one.
    expect(broken.desired_hash).toBe(firstHash);
    expect(broken.manifest_errors[0]?.file).toContain('rules.yaml');
    expect(broken.manifest_errors[0]?.line).toBeGreaterThan(0);
    expect(readyWhileBroken.status).toBe(503);
    expect(rulesWhileBroken.map((rule) => rule.description)).toEqual(['first']);
    expect(fixed?.description).toBe('third');
    expect(readyWhenFixed.status).toBe(200);
    expect(rulesAfterDelete.map((rule) => rule.id)).toEqual([fixed?.id]);
    expect(statusAfterDelete.last_plan?.refusal?.code).toBe('empty-desired');
  });

  it('reports a plan refused by --max-destroy without applying it, and is not ready', async () => {
    const running = await startDaemon({
      emulator: SEED,
      plan: { maxDestroy: { count: 0 } },
      files: {
        'manifests/rules.yaml': rulesManifest({
          office: { cidr: '203.0.113.0/24' },
          partner: { cidr: '198.51.100.0/24' },
        }),
      },
    });
    await running.record(1);
    expect(await listRules(running.emulator)).toHaveLength(2);

    await running.change(
      () => running.write('manifests/rules.yaml', rulesManifest({ office: { cidr: '203.0.113.0/24' } })),
      (record) => record.plan?.summary.refusal !== undefined,
    );
    const refused = await running.status();
    const ready = await fetch(`${running.url}/readyz`);
    const rules = await listRules(running.emulator);

    expect(refused.last_plan?.refusal?.code).toBe('max-destroy');
    expect(refused.last_plan?.applied).toBe(false);
    expect(refused.last_reconcile?.result).toBe('refused');
    expect(ready.status).toBe(503);
    expect(rules.map((rule) => rule.cidr).sort()).toEqual(['198.51.100.0/24', '203.0.113.0/24']);
  });

  it('keeps retrying while the manifest directory does not exist yet (first git-sync clone)', async () => {
    const running = await startDaemon({ emulator: SEED, paths: ['later'] });
    await running.record(1);
    const missing = await running.status();

    await running.change(
      async () => {
        await mkdir(join(running.dir, 'later'));
        await running.write('later/rules.yaml', rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
      },
      async () => ruleWithCidr('203.0.113.0/24')(await listRules(running.emulator)) !== undefined,
    );
    const created = ruleWithCidr('203.0.113.0/24')(await listRules(running.emulator));

    expect(missing.manifests_valid).toBe(false);
    expect(missing.ready).toBe(false);
    expect(running.records[0]?.run?.outcome.retry).toBe(true);
    expect(created?.action).toBe('allow');
  });

  it('follows a symlinked directory swapped to a new revision (git-sync)', async () => {
    const running = await startDaemon({
      emulator: SEED,
      paths: ['current'],
      files: {
        'rev1/rules.yaml': rulesManifest({ office: { cidr: '203.0.113.0/24' } }),
        'rev2/rules.yaml': rulesManifest({
          office: { cidr: '203.0.113.0/24' },
          partner: { cidr: '198.51.100.0/24' },
        }),
      },
      prepare: (dir) => symlink(join(dir, 'rev1'), join(dir, 'current')),
    });
    const { dir, emulator } = running;
    await running.record(1);
    expect(ruleWithCidr('203.0.113.0/24')(await listRules(emulator))).toBeDefined();

    // A resync an hour away: only the watcher can pick the swap up.
    await running.change(
      async () => {
        await symlink(join(dir, 'rev2'), join(dir, 'current.tmp'));
        await rename(join(dir, 'current.tmp'), join(dir, 'current'));
        await rm(join(dir, 'rev1'), { recursive: true });
      },
      async () => ruleWithCidr('198.51.100.0/24')(await listRules(emulator)) !== undefined,
    );
    const partner = ruleWithCidr('198.51.100.0/24')(await listRules(emulator));

    expect(JSON.parse(partner?.metadata ?? '{}')).toEqual({
      edgesync: { name: 'partner', owner: 'default' },
    });
  });

  it('re-reads a changed file only: a referenced PEM changed in place is read on SIGHUP, not on another file’s event', async () => {
    const certs = join(import.meta.dirname, '..', 'fixtures', 'certs');
    const running = await startDaemon({
      emulator: SEED,
      files: {
        'manifests/cas.yaml':
          'version: 1\ncertificate_authorities:\n  corp:\n    ca_pem_file: certs/ca.pem\n',
      },
      prepare: async (dir) => {
        await mkdir(join(dir, 'manifests', 'certs'), { recursive: true });
        await copyFile(join(certs, 'corp-root.pem'), join(dir, 'manifests', 'certs', 'ca.pem'));
      },
    });
    const manifests = join(running.dir, 'manifests');
    const started = await running.record(1);

    // A .pem raises no event; another manifest file's event reloads that file only.
    const onChange = await running.change(
      async () => {
        await copyFile(join(certs, 'partner-ca.pem'), join(manifests, 'certs', 'ca.pem'));
        await running.write('manifests/more.yaml', 'version: 1\n');
      },
      (record) => record.lastReconcile?.trigger === 'change' && record.lastReconcile.result !== 'failed',
    );
    const next = running.records.length + 1;
    running.reload();
    const onReload = await running.record(next, (record) => record.lastReconcile?.trigger === 'sighup');

    expect(started.lastReconcile?.result).toBe('applied');
    expect(onChange.lastReconcile?.result).toBe('in-sync');
    expect(onChange.manifests.desired?.hash).toBe(started.manifests.desired?.hash);
    expect(onReload.manifests.desired?.hash).not.toBe(started.manifests.desired?.hash);
    expect(onReload.plan?.summary.changes).toContain('certificate_authorities.corp');
  });
});
