import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  getStatus,
  rulesManifest,
  startDaemon,
} from '../watch/daemon-process.js';

const POLICY = 'ipp_ForcedRereadPolicy000000001';
const OWNER = 'forced-reread';
const TOKEN = 'forced-reread-token-0123456789';
/** Rules no manifest names: 150 list pages, more than one window of the budget holds. */
const UNMANAGED_RULES = 15_000;

/**
 * The service's budget shape (120 requests per window) with the window cut
 * from 60 s to 6 s: a full read of 150 pages spans two windows, as 1,000
 * pages span nine at the real budget.
 */
const BUDGET = { requests: 120, windowMs: 6000 };

describe('a forced re-read at the real budget shape, time-compressed (120/6s)', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string | undefined;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => assertBuilt());
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator?.close();
    emulator = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('SIGHUP and `edgesync reconcile --wait` each correct drift behind the daemon’s back within one forced re-read, its pages shown as it reads', async () => {
    const unmanaged = Array.from({ length: UNMANAGED_RULES }, (_, index) => ({
      ip_policy_id: POLICY,
      cidr: `10.${Math.floor(index / 256)}.${index % 256}.0/24`,
      action: 'allow',
      description: 'not managed',
    }));
    const service = await startEmulator({
      rateLimit: BUDGET,
      seed: { ip_policies: [{ id: POLICY, description: 'forced re-read' }], ip_policy_rules: unmanaged },
    });
    emulator = service;
    dir = await mkdtemp(join(tmpdir(), 'edgesync-forced-reread-'));
    await mkdir(join(dir, 'manifests'));
    await writeFile(
      join(dir, 'manifests/rules.yaml'),
      rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24', description: 'wanted' } }),
    );
    await writeFile(join(dir, 'token'), TOKEN);
    daemon = await startDaemon(
      service,
      [
        'manifests',
        '--owner',
        OWNER,
        '--interval',
        '1h',
        '--rate-limit',
        '120/6s',
        '--reconcile-token-file',
        join(dir, 'token'),
      ],
      dir,
    );
    const running = daemon;
    await eventually(async () => ((await getStatus(running)).ready ? true : undefined), 120_000);
    const office = await eventually(async () => {
      const { body } = await callService(service, 'GET', '/ip_policy_rules?limit=1');
      const [newest] = (body as { ip_policy_rules: { id: string; cidr: string }[] }).ip_policy_rules;
      return newest?.cidr === '203.0.113.0/24' ? newest : undefined;
    });
    const description = async () =>
      ((await callService(service, 'GET', `/ip_policy_rules/${office.id}`)).body as { description: string })
        .description;
    const drift = () =>
      callService(service, 'PATCH', `/ip_policy_rules/${office.id}`, { description: 'changed by hand' });
    /** Pages `in_progress` showed while the forced reconcile for `ticket` ran, and its status once served. */
    const follow = async (ticket: number) => {
      const seen: number[] = [];
      const forced = await eventually(async () => {
        const current = (await getStatus(running)).forced_reconcile;
        if (current?.in_progress) seen.push(current.in_progress.pages_read);
        return current !== undefined && current.completed >= ticket ? current : undefined;
      }, 120_000);
      return { seen, forced };
    };

    await drift();
    running.child.kill('SIGHUP');
    const hangup = await follow(1);
    const afterHangup = await description();
    await drift();
    const command = runEdgesyncProcess(['reconcile', '--daemon-url', running.url, '--wait'], {
      env: { EDGESYNC_RECONCILE_TOKEN_FILE: join(dir, 'token') },
      limitMs: 120_000,
    });
    const forced = await follow(2);
    const ran = await command;
    const afterCommand = await description();

    for (const [{ seen, forced: status }, trigger] of [
      [hangup, 'sighup'],
      [forced, 'forced'],
    ] as const) {
      expect(status.last).toMatchObject({ trigger, result: 'applied' });
      // Every page of the policy's rules, and one more forced reconcile was never needed.
      expect(status.last?.pages_read).toBeGreaterThanOrEqual(UNMANAGED_RULES / 100);
      expect(status.requested).toBe(status.completed);
      // Its progress showed while it read: a count below the last one.
      expect(seen.some((pages) => pages < (status.last?.pages_read ?? 0))).toBe(true);
    }
    expect(afterHangup).toBe('wanted');
    expect(afterCommand).toBe('wanted');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/reconcile finished: applied after reading \d+ page\(s\)/);
  }, 300_000);
});
