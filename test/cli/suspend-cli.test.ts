import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';
import {
  assertBuilt,
  type DaemonProcess,
  eventually,
  getStatus,
  listRules,
  rulesManifest,
  startDaemon,
} from '../watch/daemon-process.js';

const POLICY = 'ipp_SuspendCliTestPolicy0000001';
const SUSPEND_TOKEN = 'suspend-cli-token-NEVER-PRINTED-0123';
const RECONCILE_TOKEN = 'reconcile-cli-token-NEVER-PRINTED-45';

describe('edgesync suspend and resume: exit codes (the CLI and the daemon as processes)', () => {
  let dir: string;
  let emulator: RunningEmulator | undefined;
  let daemon: DaemonProcess | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-suspend-cli-'));
  });
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    await emulator?.close();
    emulator = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('suspend exits 0 and the daemon applies nothing; resume exits 0 and it applies; the reconcile token exits 1 saying why', async () => {
    assertBuilt();
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
    await mkdir(join(dir, 'manifests'));
    await writeFile(join(dir, 'manifests', 'rules.yaml'), rulesManifest(POLICY, {}));
    await writeFile(join(dir, 'suspend-token'), `${SUSPEND_TOKEN}\n`);
    await writeFile(join(dir, 'reconcile-token'), `${RECONCILE_TOKEN}\n`);
    await chmod(join(dir, 'suspend-token'), 0o600);
    await chmod(join(dir, 'reconcile-token'), 0o600);
    daemon = await startDaemon(emulator, ['manifests', '--reconcile-token-file', 'reconcile-token'], dir, {
      EDGESYNC_SUSPEND_TOKEN_FILE: join(dir, 'suspend-token'),
    });
    const running = daemon;
    await eventually(async () => ((await getStatus(running)).ready ? true : undefined));
    const cli = (action: string, file: string) =>
      runEdgesyncProcess([action, '--daemon-url', running.url, '--suspend-token-file', join(dir, file)], {
        limitMs: 30_000,
      });

    const suspended = await cli('suspend', 'suspend-token');
    await writeFile(
      join(dir, 'manifests', 'rules.yaml'),
      rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24', description: 'office' } }),
    );
    const pending = await eventually(async () => {
      const status = await getStatus(running);
      return status.differences?.pending.length === 1 ? status : undefined;
    });
    const rulesWhileSuspended = await listRules(emulator);
    const refused = await cli('resume', 'reconcile-token');
    const resumed = await cli('resume', 'suspend-token');
    const applied = await eventually(async () =>
      (await listRules(emulator as RunningEmulator)).length === 1 ? true : undefined,
    );
    const logs = running.stderr();

    expect(suspended.code, suspended.stderr).toBe(0);
    expect(pending.suspended).toBe(true);
    expect(rulesWhileSuspended).toEqual([]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('that is the reconcile token');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(applied).toBe(true);
    expect(logs).toContain(
      '"msg":"suspended: the daemon reads and reports drift, and sends no write until edgesync resume"',
    );
    expect(logs).toContain('"msg":"resumed: the daemon applies again"');
    for (const run of [suspended, refused, resumed]) {
      expect(run.stdout + run.stderr).not.toContain(SUSPEND_TOKEN);
      expect(run.stdout + run.stderr).not.toContain(RECONCILE_TOKEN);
    }
    expect(logs).not.toContain(SUSPEND_TOKEN);
    expect(logs).not.toContain(RECONCILE_TOKEN);
  });

  it('exits 1 naming the variable without a token file, and when no daemon listens', async () => {
    await writeFile(join(dir, 'suspend-token'), `${SUSPEND_TOKEN}\n`, { mode: 0o600 });

    const noToken = await runEdgesyncProcess(['suspend', '--daemon-url', 'http://127.0.0.1:9'], {
      limitMs: 30_000,
    });
    const unreachable = await runEdgesyncProcess(
      ['resume', '--daemon-url', 'http://127.0.0.1:9', '--suspend-token-file', join(dir, 'suspend-token')],
      { limitMs: 30_000 },
    );

    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('EDGESYNC_SUSPEND_TOKEN_FILE');
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach the daemon at http://127.0.0.1:9');
    expect(unreachable.stderr).not.toContain(SUSPEND_TOKEN);
  });
});
