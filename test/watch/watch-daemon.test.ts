import { copyFile, mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import type { DaemonStatusJson } from '../../src/watch/daemon-status.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  getStatus,
  type LiveRule,
  listRules,
  type RuleSpec,
  rulesManifest as rulesManifestOf,
  startDaemon,
} from './daemon-process.js';
import { parsePrometheusText, sampleSum } from './prometheus-text.js';

const POLICY = 'ipp_WatchTestPolicy000000000001';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);

async function metrics(daemon: DaemonProcess): Promise<ReturnType<typeof parsePrometheusText>> {
  return parsePrometheusText(await (await fetch(`${daemon.url}/metrics`)).text());
}

async function reconcileCount(daemon: DaemonProcess): Promise<number> {
  return sampleSum(await metrics(daemon), 'edgesync_reconciles_total');
}

function ruleWithCidr(cidr: string) {
  return (rules: LiveRule[]): LiveRule | undefined => rules.find((rule) => rule.cidr === cidr);
}

describe('edgesync watch (the daemon as a process against the emulator)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'watch tests' }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-'));
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('applies a written file, reverts out-of-band drift on resync, counts it in /metrics, and exits 0 on SIGTERM', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    // Ten times the default budget: background full reads take 25% of it, 50 requests in each 10 s slice of
    // the window. At the default 5 a slice, a cycle of 4 requests waited up to 10 s for its turn, and the
    // deletion below up to two such waits: over the test's timeout on a loaded machine.
    daemon = await startDaemon(emulator, [manifests, '--interval', '1s', '--rate-limit', '1200/60s'], dir);
    const running = daemon;

    await writeFile(join(manifests, 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    const created = await eventually(async () => ruleWithCidr('203.0.113.0/24')(await listRules(emulator)));
    await callService(emulator, 'DELETE', `/ip_policy_rules/${created.id}`);
    // Seen by a background full read within a cycle or two.
    const recreated = await eventually(async () => {
      const rule = ruleWithCidr('203.0.113.0/24')(await listRules(emulator));
      return rule && rule.id !== created.id ? rule : undefined;
    }, 60_000);
    const samples = await eventually(async () => {
      const current = await metrics(running);
      return sampleSum(current, 'edgesync_reconciles_total', { result: 'applied' }) >= 2
        ? current
        : undefined;
    });
    const ready = await fetch(`${running.url}/readyz`);
    const exitCode = await running.stop('SIGTERM');
    daemon = undefined;

    expect(JSON.parse(recreated.metadata ?? '{}')).toEqual({
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
    expect(exitCode).toBe(0);
    expect(running.stderr()).not.toContain(emulator.apiKey);
  });

  it('in observe mode only reports drift and changes nothing', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    daemon = await startDaemon(emulator, [manifests, '--mode', 'observe', '--interval', '1s'], dir);
    const running = daemon;

    const status = await eventually(async () => {
      const current = await getStatus(running);
      return current.last_reconcile ? current : undefined;
    });
    await eventually(async () => ((await reconcileCount(running)) >= 2 ? true : undefined));
    const samples = await metrics(running);
    const rules = await listRules(emulator);

    expect(status.mode).toBe('observe');
    expect(status.last_reconcile?.result).toBe('drift');
    expect(status.last_plan?.changes).toEqual(['ip_policy_rules.office']);
    expect(status.last_plan?.applied).toBe(false);
    expect(sampleSum(samples, 'edgesync_drifted_objects', { kind: 'ip_policy_rules' })).toBe(1);
    expect(sampleSum(samples, 'edgesync_api_requests_total', { method: 'POST' })).toBe(0);
    expect(rules).toEqual([]);
  });

  it('keeps the last valid state while a file is broken, is not ready, resumes when fixed, and never prunes on an empty set', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    const file = join(manifests, 'rules.yaml');
    await writeFile(file, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'first' } }));
    daemon = await startDaemon(emulator, [manifests, '--interval', '1s'], dir);
    const running = daemon;
    await eventually(async () => ruleWithCidr('203.0.113.0/24')(await listRules(emulator)));
    await eventually(async () => ((await fetch(`${running.url}/readyz`)).status === 200 ? true : undefined));

    await writeFile(
      file,
      `${rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'second' } })}  broken:\n    cidr: 198.51.100.7/24\n`,
    );
    const broken = await eventually(async () => {
      const current = await getStatus(running);
      return current.manifests_valid === false ? current : undefined;
    });
    const readyWhileBroken = await fetch(`${running.url}/readyz`);
    const rulesWhileBroken = await listRules(emulator);

    await writeFile(file, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'third' } }));
    const fixed = await eventually(async () => {
      const rule = ruleWithCidr('203.0.113.0/24')(await listRules(emulator));
      return rule?.description === 'third' ? rule : undefined;
    });
    await eventually(async () => ((await fetch(`${running.url}/readyz`)).status === 200 ? true : undefined));

    await unlink(file);
    const before = await reconcileCount(running);
    await eventually(async () => ((await reconcileCount(running)) >= before + 2 ? true : undefined));
    const rulesAfterDelete = await listRules(emulator);
    const statusAfterDelete = await getStatus(running);

    expect(broken.manifest_errors.length).toBeGreaterThan(0);
    expect(broken.manifest_errors[0]?.file).toContain('rules.yaml');
    expect(broken.manifest_errors[0]?.line).toBeGreaterThan(0);
    expect(readyWhileBroken.status).toBe(503);
    expect(rulesWhileBroken.map((rule) => rule.description)).toEqual(['first']);
    expect(fixed.description).toBe('third');
    expect(rulesAfterDelete.map((rule) => rule.id)).toEqual([fixed.id]);
    expect(statusAfterDelete.last_plan?.refusal?.code).toBe('empty-desired');
    expect(await running.stop('SIGTERM')).toBe(0);
    daemon = undefined;
  });

  it('reports a plan refused by --max-destroy without applying it, and is not ready', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    const file = join(manifests, 'rules.yaml');
    await writeFile(
      file,
      rulesManifest({ office: { cidr: '203.0.113.0/24' }, partner: { cidr: '198.51.100.0/24' } }),
    );
    daemon = await startDaemon(emulator, [manifests, '--interval', '1h', '--max-destroy', '0'], dir);
    const running = daemon;
    await eventually(async () => ((await listRules(emulator)).length === 2 ? true : undefined));

    await writeFile(file, rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    const refused = await eventually(async () => {
      const current = await getStatus(running);
      return current.last_plan?.refusal ? current : undefined;
    });
    const ready = await fetch(`${running.url}/readyz`);
    const rules = await listRules(emulator);

    expect(refused.last_plan?.refusal?.code).toBe('max-destroy');
    expect(refused.last_plan?.applied).toBe(false);
    expect(refused.last_reconcile?.result).toBe('refused');
    expect(ready.status).toBe(503);
    expect(rules.map((rule) => rule.cidr).sort()).toEqual(['198.51.100.0/24', '203.0.113.0/24']);
  });

  it('keeps retrying while the manifest directory does not exist yet (first git-sync clone)', async () => {
    const manifests = join(dir, 'later');
    daemon = await startDaemon(emulator, [manifests, '--interval', '1h'], dir);
    const running = daemon;
    const missing = await eventually(async () => {
      const current = await getStatus(running);
      return current.manifests_valid === false ? current : undefined;
    });

    await mkdir(manifests);
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    const created = await eventually(async () => ruleWithCidr('203.0.113.0/24')(await listRules(emulator)));

    expect(missing.ready).toBe(false);
    expect(created.action).toBe('allow');
  });

  it('abandons a slow reconcile at --shutdown-timeout on SIGTERM and still exits 0', async () => {
    await emulator.close();
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] }, latencyMs: 5000 });
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    daemon = await startDaemon(emulator, [manifests, '--shutdown-timeout', '200ms'], dir);
    const running = daemon;
    // "watching" is logged just before the first reconcile starts; the emulator holds its requests for 5 s.
    await eventually(() => (running.stderr().includes('"msg":"watching"') ? true : undefined));

    const exitCode = await running.stop('SIGTERM');
    daemon = undefined;

    expect(exitCode).toBe(0);
    expect(running.stderr()).toContain('"in_flight":"abandoned"');
  });

  it('follows a symlinked directory swapped to a new revision (git-sync)', async () => {
    await mkdir(join(dir, 'rev1'));
    await mkdir(join(dir, 'rev2'));
    await writeFile(join(dir, 'rev1', 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    await writeFile(
      join(dir, 'rev2', 'rules.yaml'),
      rulesManifest({ office: { cidr: '203.0.113.0/24' }, partner: { cidr: '198.51.100.0/24' } }),
    );
    await symlink(join(dir, 'rev1'), join(dir, 'current'));
    // A resync far away: only the watcher can pick the swap up within the test.
    daemon = await startDaemon(emulator, [join(dir, 'current'), '--interval', '1h'], dir);
    await eventually(async () => ruleWithCidr('203.0.113.0/24')(await listRules(emulator)));

    await symlink(join(dir, 'rev2'), join(dir, 'current.tmp'));
    await rename(join(dir, 'current.tmp'), join(dir, 'current'));
    await rm(join(dir, 'rev1'), { recursive: true });
    const partner = await eventually(async () => ruleWithCidr('198.51.100.0/24')(await listRules(emulator)));

    expect(JSON.parse(partner.metadata ?? '{}')).toEqual({ edgesync: { name: 'partner', owner: 'default' } });
  });

  it('takes --no-color: pretty logs carry no ANSI colour even where colour is forced', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    const forced = { FORCE_COLOR: '1', NO_COLOR: undefined };
    const run = async (extra: readonly string[]): Promise<string> => {
      const started = await startDaemon(
        emulator,
        [manifests, '--interval', '1h', '--log-format', 'pretty', ...extra],
        dir,
        forced,
      );
      daemon = started;
      await eventually(() => (started.stderr().includes('reconcile finished') ? true : undefined));
      await started.stop('SIGTERM');
      daemon = undefined;
      return started.stderr();
    };

    const coloured = await run([]);
    const plain = await run(['--no-color']);

    expect(coloured).toContain('\u001b[');
    expect(plain).toContain('reconcile finished');
    expect(plain).not.toContain('\u001b[');
  });

  it('logs which directories it read at start, again on SIGHUP, and when a new one holds manifests', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(join(manifests, 'team-a'), { recursive: true });
    await mkdir(join(manifests, 'node_modules', 'dep'), { recursive: true });
    await writeFile(
      join(manifests, 'team-a', 'rules.yaml'),
      rulesManifest({ a: { cidr: '203.0.113.0/24' } }),
    );
    await writeFile(join(manifests, 'node_modules', 'dep', 'x.yaml'), 'not: a manifest\n');
    daemon = await startDaemon(emulator, [manifests, '--interval', '1h'], dir);
    const running = daemon;
    const said = (): { directories: string[]; skipped: string[] }[] =>
      running
        .stderr()
        .split('\n')
        .filter((line) => line.includes('"manifests read"'))
        .map((line) => JSON.parse(line) as { directories: string[]; skipped: string[] });

    const atStart = await eventually(() => (said().length === 1 ? said() : undefined));
    running.child.kill('SIGHUP');
    await eventually(() => (said().length === 2 ? true : undefined));
    await mkdir(join(manifests, 'team-b'));
    await writeFile(
      join(manifests, 'team-b', 'rules.yaml'),
      rulesManifest({ b: { cidr: '198.51.100.0/24' } }),
    );
    const afterNew = await eventually(() => (said().length === 3 ? said() : undefined));

    expect(atStart[0]?.directories).toEqual([join(manifests, 'team-a')]);
    expect(atStart[0]?.skipped).toContain('node_modules');
    expect(afterNew[1]?.directories).toEqual([join(manifests, 'team-a')]);
    expect(afterNew[2]?.directories).toEqual([join(manifests, 'team-a'), join(manifests, 'team-b')]);
  });

  it('re-reads a changed file only: a referenced PEM changed in place is read on SIGHUP, not on another file’s event', async () => {
    const manifests = join(dir, 'manifests');
    const certs = join(import.meta.dirname, '..', 'fixtures', 'certs');
    await mkdir(join(manifests, 'certs'), { recursive: true });
    await copyFile(join(certs, 'corp-root.pem'), join(manifests, 'certs', 'ca.pem'));
    await writeFile(
      join(manifests, 'cas.yaml'),
      'version: 1\ncertificate_authorities:\n  corp:\n    ca_pem_file: certs/ca.pem\n',
    );
    daemon = await startDaemon(emulator, [manifests, '--interval', '1h'], dir);
    const running = daemon;
    const settled = async (trigger: string, after?: string): Promise<DaemonStatusJson> =>
      eventually(async () => {
        const status = await getStatus(running);
        const last = status.last_reconcile;
        return last?.trigger === trigger && last.finished_at !== after && last.result !== 'failed'
          ? status
          : undefined;
      }, 60_000);
    const started = await eventually(async () => {
      const status = await getStatus(running);
      return status.last_reconcile?.result === 'applied' ? status : undefined;
    }, 60_000);

    // A .pem raises no event; another manifest file's event reloads that file only.
    await copyFile(join(certs, 'partner-ca.pem'), join(manifests, 'certs', 'ca.pem'));
    await writeFile(join(manifests, 'more.yaml'), 'version: 1\n');
    const onChange = await settled('change', started.last_reconcile?.finished_at);
    running.child.kill('SIGHUP');
    const onReload = await settled('sighup', onChange.last_reconcile?.finished_at);

    expect(onChange.last_reconcile?.result).toBe('in-sync');
    expect(onChange.desired_hash).toBe(started.desired_hash);
    expect(onReload.desired_hash).not.toBe(started.desired_hash);
    expect(onReload.last_plan?.changes).toContain('certificate_authorities.corp');
  });
});
