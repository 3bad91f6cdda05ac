import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorSeed } from '../../src/emulator/seed.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { type DaemonHarness, useDaemonHarness } from './daemon-harness.js';
import { callService, listRules, type RuleSpec, rulesManifest as rulesManifestOf } from './daemon-process.js';
import { sampleSum } from './prometheus-text.js';

const POLICY = 'ipp_WatchSkipTestPolicy00000001';
const OWNER = 'skip-tests';
const MISSING_CA = 'ca_WatchSkipTestMissingCa000001';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);

async function metric(
  daemon: DaemonHarness,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  return sampleSum(await daemon.metrics(), name, labels);
}

describe('edgesync watch skips an entry it cannot apply and applies the rest (in process)', () => {
  const startDaemon = useDaemonHarness();
  const start = (seed: EmulatorSeed, files: Record<string, string>): Promise<DaemonHarness> =>
    startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'skip tests' }], ...seed } },
      owner: OWNER,
      files,
    });

  it('corrects unrelated drift while a protected object of this owner that no manifest names stays, reported as skipped', async () => {
    const ghost = {
      ip_policy_id: POLICY,
      cidr: '10.40.0.0/16',
      action: 'deny',
      metadata: encodeMetadata(undefined, { owner: OWNER, name: 'ghost', protect: true }),
    };
    const running = await start(
      { ip_policy_rules: [ghost] },
      { 'manifests/rules.yaml': rulesManifest({ block: { cidr: '10.30.0.0/16', action: 'deny' } }) },
    );
    const service = running.emulator;
    await running.record(1);
    const block = (await listRules(service)).find((rule) => rule.cidr === '10.30.0.0/16');

    // The deny moved off its range behind the daemon's back; the background read sees it at the next interval.
    await callService(service, 'PATCH', `/ip_policy_rules/${block?.id}`, { cidr: '10.31.0.0/16' });
    const next = running.records.length + 1;
    await running.advance(running.intervalMs);
    await running.record(next, async (record) => {
      const rule = (await listRules(service)).find((candidate) => candidate.id === block?.id);
      return rule?.cidr === '10.30.0.0/16' && record.lastReconcile?.trigger === 'resync';
    });
    const corrected = (await listRules(service)).find((candidate) => candidate.id === block?.id);
    const status = await running.status();
    const ready = await fetch(`${running.url}/readyz`);
    const healthy = await fetch(`${running.url}/healthz`);
    const skippedMetric = await metric(running, 'edgesync_skipped_entries', {
      kind: 'ip_policy_rules',
      reason: 'protected',
    });
    const rules = await listRules(service);

    expect(corrected?.cidr).toBe('10.30.0.0/16');
    expect(rules.map((rule) => rule.cidr).sort()).toEqual(['10.30.0.0/16', '10.40.0.0/16']);
    expect(status.last_reconcile?.result).toBe('partial');
    expect(status.skipped_entries).toEqual([
      expect.objectContaining({
        kind: 'ip_policy_rules',
        name: 'ghost',
        reason: 'protected',
        file: null,
        line: null,
        waits_for: null,
      }),
    ]);
    expect(status.skipped_entries?.[0]?.reconciles).toBeGreaterThanOrEqual(2);
    expect(status.skipped_entries?.[0]?.message).toContain(
      'protect: true forbids deleting ip_policy_rules.ghost',
    );
    expect(status.ready).toBe(false);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('ip_policy_rules.ghost (protected)');
    expect(healthy.status).toBe(200);
    expect(skippedMetric).toBe(1);
  });

  it('skips an entry whose CIDR another owner holds, what waits for it, and one naming a CA the account lacks; the rest is applied', async () => {
    const taken = { ip_policy_id: POLICY, cidr: '198.51.100.0/24', action: 'deny', description: 'not ours' };
    const running = await start(
      { ip_policy_rules: [taken] },
      {
        'manifests/rules.yaml': rulesManifest({
          lab: { cidr: '198.51.100.0/24', action: 'deny' },
          // An allow inside lab's range waits for lab's deny: it is skipped with it.
          'lab-web': { cidr: '198.51.100.0/25', action: 'allow' },
          office: { cidr: '203.0.113.0/24', action: 'allow' },
        }),
        'manifests/edges.yaml': `version: 1\nhttps_edges:\n  web:\n    hostports: [web.skip.example.com:443]\n    mutual_tls:\n      certificate_authorities: [${MISSING_CA}]\n`,
      },
    );
    const service = running.emulator;
    const manifests = join(running.dir, 'manifests');

    await running.record(1, (record) => record.lastReconcile?.result === 'partial');
    const status = await running.status();
    const rules = await listRules(service);
    const edges = (await callService(service, 'GET', '/edges/https')).body as { https_edges: unknown[] };
    const ready = await fetch(`${running.url}/readyz`);

    expect(rules.map((rule) => [rule.cidr, rule.description ?? null]).sort()).toEqual([
      ['198.51.100.0/24', 'not ours'],
      ['203.0.113.0/24', null],
    ]);
    expect(edges.https_edges).toEqual([]);
    expect(
      status.skipped_entries?.map((entry) => [entry.kind, entry.name, entry.reason, entry.waits_for]),
    ).toEqual([
      ['ip_policy_rules', 'lab', 'unique_key_taken', null],
      ['https_edges', 'web', 'reference_not_found', null],
      ['ip_policy_rules', 'lab-web', 'waits_for_skipped', 'ip_policy_rules.lab'],
    ]);
    expect(status.skipped_entries?.find((entry) => entry.name === 'lab')).toMatchObject({
      file: join(manifests, 'rules.yaml'),
      line: expect.any(Number),
    });
    expect(status.last_plan?.errors.map((error) => error.code).sort()).toEqual([
      'reference_not_found',
      'unique_key_taken',
    ]);
    expect(status.last_plan?.applied).toBe(true);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('3 entries skipped');
    expect(await metric(running, 'edgesync_skipped_entries')).toBe(3);
  });
});
