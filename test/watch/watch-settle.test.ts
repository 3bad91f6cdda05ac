import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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

const POLICY = 'ipp_WatchSettleTestPolicy000001';
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

/** The next reconcile to finish after `finishedAt` (RFC 3339, or undefined for the first). */
async function nextReconcile(
  daemon: DaemonProcess,
  finishedAt: string | undefined,
  test: (status: DaemonStatusJson) => boolean = () => true,
  limitMs?: number,
): Promise<DaemonStatusJson> {
  return eventually(async () => {
    const status = await getStatus(daemon);
    const last = status.last_reconcile;
    return last !== null && last.finished_at !== finishedAt && test(status) ? status : undefined;
  }, limitMs);
}

describe('edgesync watch waits for a settled file before it deletes (the daemon as a process)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let manifests: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'settle tests' }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-settle-'));
    manifests = join(dir, 'manifests');
    await mkdir(manifests);
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('deletes nothing while a writer pauses half-way through rewriting a file of deny rules, past --debounce', async () => {
    const file = join(manifests, 'rules.yaml');
    const whole = rulesManifest(TEN_DENY);
    await writeFile(file, whole);
    // The default --settle; the test's own --debounce is 200ms.
    daemon = await startDaemon(emulator, [manifests, '--interval', '1h'], dir);
    const running = daemon;
    const applied = await eventually(async () => {
      const status = await getStatus(running);
      return status.last_reconcile?.result === 'applied' && (await listRules(emulator)).length === 10
        ? status
        : undefined;
    });
    const before = await listRules(emulator);
    const writesBefore = await writeCounts(emulator);

    // The writer truncates the file, writes the first five rules, and pauses longer than --debounce:
    // the daemon reads a valid file of five rules. Only then does the writer finish.
    const cut = whole.indexOf('  rule-5:');
    const writer = await open(file, 'w');
    await writer.write(whole.slice(0, cut));
    await writer.sync();
    const pauseStarted = Date.now();
    const halfRead = await nextReconcile(running, applied.last_reconcile?.finished_at, (status) =>
      (status.last_plan?.changes ?? []).some((address) => address === 'ip_policy_rules.rule-9'),
    );
    await sleep(Math.max(0, 1200 - (Date.now() - pauseStarted)));
    await writer.write(whole.slice(cut));
    await writer.close();
    const whole2 = await nextReconcile(
      running,
      halfRead.last_reconcile?.finished_at,
      (status) => status.desired_hash === applied.desired_hash,
    );
    const after = await listRules(emulator);
    const writesAfter = await writeCounts(emulator);

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
    const file = join(manifests, 'rules.yaml');
    await writeFile(
      file,
      rulesManifest({ keep: { cidr: '192.0.2.0/24' }, old: { cidr: '198.51.100.0/24' } }),
    );
    daemon = await startDaemon(emulator, [manifests, '--interval', '1h', '--settle', '2s'], dir);
    const running = daemon;
    const applied = await eventually(async () => {
      const status = await getStatus(running);
      return status.last_reconcile?.result === 'applied' && (await listRules(emulator)).length === 2
        ? status
        : undefined;
    });

    await writeFile(file, rulesManifest({ keep: { cidr: '192.0.2.0/24' }, new: { cidr: '203.0.113.0/24' } }));
    const settling = await nextReconcile(running, applied.last_reconcile?.finished_at);
    const during = await listRules(emulator);
    const settled = await nextReconcile(running, settling.last_reconcile?.finished_at);
    const after = await listRules(emulator);
    const cidrs = (rules: readonly LiveRule[]): string[] => rules.map((rule) => rule.cidr).sort();

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
    const file = join(manifests, 'rules.yaml');
    await writeFile(
      file,
      rulesManifest({ keep: { cidr: '192.0.2.0/24' }, old: { cidr: '198.51.100.0/24' } }),
    );
    daemon = await startDaemon(emulator, [manifests, '--interval', '1h'], dir, { EDGESYNC_SETTLE: '0s' });
    const running = daemon;
    const applied = await eventually(async () => {
      const status = await getStatus(running);
      return status.last_reconcile?.result === 'applied' ? status : undefined;
    });

    await writeFile(file, rulesManifest({ keep: { cidr: '192.0.2.0/24' } }));
    const next = await nextReconcile(running, applied.last_reconcile?.finished_at);

    expect(next.last_reconcile).toMatchObject({ trigger: 'change', result: 'applied' });
    expect(next.settle).toMatchObject({ period_ms: 0, settled: true, held_deletes: [] });
    expect((await listRules(emulator)).map((rule) => rule.cidr)).toEqual(['192.0.2.0/24']);
  });
});
