import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import type { DaemonStatusJson } from '../../src/watch/daemon-status.js';
import {
  assertBuilt,
  type DaemonProcess,
  eventually,
  getStatus,
  listRules,
  type RuleSpec,
  rulesManifest as rulesManifestOf,
  startDaemon,
} from './daemon-process.js';

const POLICY = 'ipp_SettleProcessTestPolicy0001';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);
const BOTH = { keep: { cidr: '192.0.2.0/24' }, old: { cidr: '198.51.100.0/24' } };
const KEEP = { keep: { cidr: '192.0.2.0/24' } };
/** Another file of rules, its description changed on each write. */
const churnRules = (round: number): string =>
  rulesManifest({ churn: { cidr: '203.0.113.0/24', description: `round ${round}` } });
/** A file of another kind, changed on each write. */
const churnAddresses = (round: number): string =>
  `version: 1\nreserved_addrs:\n  bastion:\n    description: round ${round}\n`;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface LogLine {
  readonly msg?: string;
  readonly deletes?: readonly string[];
  readonly result?: string;
}

/** The daemon's JSON log lines so far. */
function logLines(daemon: DaemonProcess): LogLine[] {
  return daemon
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const hasOld = async (emulator: RunningEmulator): Promise<boolean> =>
  (await listRules(emulator)).some((rule) => rule.cidr === '198.51.100.0/24');

const heldOld = (status: DaemonStatusJson) =>
  status.settle?.held?.find((held) => held.address === 'ip_policy_rules.old');

/**
 * The settle clocks as a process: `edgesync watch` with its flags, on the
 * wall clock, real files rewritten by the test while a delete is due. Each
 * case failed before deletes had clocks of their own: a tree that kept
 * changing held every delete back, and content that read as before did not
 * start the period again. The same rules, on the test's clock and in
 * process, are test/watch/settle-clocks.test.ts.
 */
describe('edgesync watch --settle --settle-max (the daemon as a process)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let manifests: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'settle' }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-settle-'));
    manifests = join(dir, 'manifests');
    await mkdir(manifests);
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts the daemon on `files` and waits for its first reconcile to apply them. */
  async function started(files: Record<string, string>, flags: readonly string[]): Promise<DaemonProcess> {
    for (const [name, text] of Object.entries(files)) await writeFile(join(manifests, name), text);
    const running = await startDaemon(
      emulator,
      [manifests, '--interval', '1h', '--rate-limit', '6000/60s', ...flags],
      dir,
    );
    daemon = running;
    await eventually(async () =>
      (await getStatus(running)).last_reconcile?.result === 'applied' ? true : undefined,
    );
    return running;
  }

  /** Removes `old` and waits for the run that holds its delete. */
  async function removeOld(running: DaemonProcess): Promise<DaemonStatusJson> {
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest(KEEP));
    return eventually(async () => {
      const status = await getStatus(running);
      return heldOld(status) === undefined ? undefined : status;
    });
  }

  /** Rewrites a file every 300 ms, round after round, until `old` is gone or 40 rounds (12 s) have passed. */
  async function churnUntilDeleted(file: string, text: (round: number) => string): Promise<number> {
    let round = 1;
    for (; round <= 40 && (await hasOld(emulator)); round += 1) {
      await writeFile(join(manifests, file), text(round));
      await pause(300);
    }
    return round;
  }

  it('sends the delete by --settle-max while another file of rules changes every 300 ms, and logs why', async () => {
    const running = await started({ 'rules.yaml': rulesManifest(BOTH), 'more.yaml': churnRules(0) }, [
      '--settle',
      '1s',
      '--settle-max',
      '3s',
    ]);
    const held = await removeOld(running);

    const rounds = await churnUntilDeleted('more.yaml', churnRules);
    const said = logLines(running).find((line) => line.msg?.startsWith('deletes sent at --settle-max'));

    expect(held.settle?.max_ms).toBe(3000);
    expect(heldOld(held)).toBeDefined();
    // The writer was still at it when the delete went: 40 rounds is four times the bound.
    expect(rounds).toBeLessThan(40);
    expect(await hasOld(emulator)).toBe(false);
    expect(said?.deletes).toEqual(['ip_policy_rules.old']);
  });

  it('lets a file of another kind change every 300 ms: the delete goes by --settle, never by the bound', async () => {
    const running = await started({ 'rules.yaml': rulesManifest(BOTH), 'addrs.yaml': churnAddresses(0) }, [
      '--settle',
      '1s',
      '--settle-max',
      '1h',
    ]);
    const held = await removeOld(running);

    const rounds = await churnUntilDeleted('addrs.yaml', churnAddresses);
    const lines = logLines(running);

    expect(heldOld(held)).toBeDefined();
    expect(rounds).toBeLessThan(40);
    expect(await hasOld(emulator)).toBe(false);
    expect(lines.some((line) => line.msg?.startsWith('deletes sent at --settle-max'))).toBe(false);
  });

  it('starts the clock again on a remove, restore and remove within one debounce, though the file reads as before', async () => {
    const running = await started({ 'rules.yaml': rulesManifest(BOTH) }, ['--settle', '3s']);
    const first = await removeOld(running);
    const firstChange = Date.parse(heldOld(first)?.last_change_at ?? '');
    await pause(1_000);

    // Two more writes back to back, well within the 200 ms debounce: one run follows, and it reads what the first did.
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest(BOTH));
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest(KEEP));
    const again = await eventually(async () => {
      const status = await getStatus(running);
      const lastChange = Date.parse(heldOld(status)?.last_change_at ?? '');
      return lastChange > firstChange ? status : undefined;
    });
    const lastChange = Date.parse(heldOld(again)?.last_change_at ?? '');
    // Until --settle after the first removal, by the daemon's own clock: still there.
    while (Date.now() < firstChange + 3_000 + 200) await pause(50);
    const pastFirstPeriod = await hasOld(emulator);
    await eventually(async () => ((await hasOld(emulator)) ? undefined : true));
    const deleted = await getStatus(running);

    expect(again.desired_hash).toBe(first.desired_hash);
    expect(Date.parse(heldOld(again)?.due_at ?? '')).toBe(lastChange + 3_000);
    expect(pastFirstPeriod).toBe(true);
    expect(Date.parse(deleted.last_reconcile?.started_at ?? '')).toBeGreaterThanOrEqual(lastChange + 3_000);
  });
});
