import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorSeed } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  getStatus,
  listRules,
  type RuleSpec,
  rulesManifest as rulesManifestOf,
  startDaemon,
} from './daemon-process.js';
import { parsePrometheusText, sampleSum } from './prometheus-text.js';

const POLICY = 'ipp_WatchSkipTestPolicy00000001';
const OWNER = 'skip-tests';
const MISSING_CA = 'ca_WatchSkipTestMissingCa000001';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);

async function metric(
  daemon: DaemonProcess,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  return sampleSum(parsePrometheusText(await (await fetch(`${daemon.url}/metrics`)).text()), name, labels);
}

describe('edgesync watch skips an entry it cannot apply and applies the rest (the daemon as a process)', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string;
  let manifests: string;
  let daemon: DaemonProcess | undefined;

  const start = async (seed: EmulatorSeed): Promise<[RunningEmulator, DaemonProcess]> => {
    const service = await startEmulator({
      seed: { ip_policies: [{ id: POLICY, description: 'skip tests' }], ...seed },
    });
    emulator = service;
    // A lifted budget and a 1 s interval: background full reads see drift within a second or two.
    daemon = await startDaemon(
      service,
      [manifests, '--owner', OWNER, '--interval', '1s', '--rate-limit', '6000/60s'],
      dir,
    );
    return [service, daemon];
  };

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-skip-'));
    manifests = join(dir, 'manifests');
    await mkdir(manifests);
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator?.close();
    emulator = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('corrects unrelated drift while a protected object of this owner that no manifest names stays, reported as skipped', async () => {
    await writeFile(
      join(manifests, 'rules.yaml'),
      rulesManifest({ block: { cidr: '10.30.0.0/16', action: 'deny' } }),
    );
    const ghost = {
      ip_policy_id: POLICY,
      cidr: '10.40.0.0/16',
      action: 'deny',
      metadata: encodeMetadata(undefined, { owner: OWNER, name: 'ghost', protect: true }),
    };
    const [service, running] = await start({ ip_policy_rules: [ghost] });
    const block = await eventually(async () =>
      (await listRules(service)).find((rule) => rule.cidr === '10.30.0.0/16'),
    );

    // The deny moved off its range behind the daemon's back.
    await callService(service, 'PATCH', `/ip_policy_rules/${block.id}`, { cidr: '10.31.0.0/16' });
    const corrected = await eventually(async () => {
      const rule = (await listRules(service)).find((candidate) => candidate.id === block.id);
      return rule?.cidr === '10.30.0.0/16' && (await getStatus(running)).last_reconcile?.trigger === 'resync'
        ? rule
        : undefined;
    });
    const status = await getStatus(running);
    const ready = await fetch(`${running.url}/readyz`);
    const healthy = await fetch(`${running.url}/healthz`);
    const skippedMetric = await metric(running, 'edgesync_skipped_entries', {
      kind: 'ip_policy_rules',
      reason: 'protected',
    });
    const rules = await listRules(service);

    expect(corrected.cidr).toBe('10.30.0.0/16');
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
    await writeFile(
      join(manifests, 'rules.yaml'),
      rulesManifest({
        lab: { cidr: '198.51.100.0/24', action: 'deny' },
        // An allow inside lab's range waits for lab's deny: it is skipped with it.
        'lab-web': { cidr: '198.51.100.0/25', action: 'allow' },
        office: { cidr: '203.0.113.0/24', action: 'allow' },
      }),
    );
    await writeFile(
      join(manifests, 'edges.yaml'),
      `version: 1\nhttps_edges:\n  web:\n    hostports: [web.skip.example.com:443]\n    mutual_tls:\n      certificate_authorities: [${MISSING_CA}]\n`,
    );
    const [service, running] = await start({ ip_policy_rules: [taken] });

    const status = await eventually(async () => {
      const current = await getStatus(running);
      return current.last_reconcile?.result === 'partial' ? current : undefined;
    });
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
