import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { uiLines } from '../support/ui-lines.js';
import {
  assertBuilt,
  type DaemonProcess,
  eventually,
  getStatus,
  rulesManifest,
  startDaemon,
} from '../watch/daemon-process.js';

const POLICY = 'ipp_ReconcileJsonTestPolicy0001';
const TOKEN = 'reconcile-json-token-0123456789';

describe('reconcile --format json: the same machine-readable UI as apply', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let tokenFile: string;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    assertBuilt();
    emulator = await startEmulator({
      seed: { ip_policies: [{ id: POLICY, description: 'reconcile json' }] },
    });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-reconcile-json-'));
    await mkdir(join(dir, 'manifests'));
    await writeFile(
      join(dir, 'manifests/rules.yaml'),
      rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24' } }),
    );
    tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${TOKEN}\n`);
    daemon = await startDaemon(
      emulator,
      [
        join(dir, 'manifests'),
        '--interval',
        '1h',
        '--rate-limit',
        '6000/60s',
        '--reconcile-token-file',
        tokenFile,
      ],
      dir,
    );
    await eventually(async () => ((await getStatus(daemon)).ready ? true : undefined));
  });
  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await emulator?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('--wait: version, the request, the reconcile as it completes, and the summary with the exit code', async () => {
    const run = await runEdgesyncInProcess(
      ['reconcile', '--daemon-url', daemon.url, '--wait', '--format', 'json'],
      {
        env: { EDGESYNC_RECONCILE_TOKEN_FILE: tokenFile },
      },
    );

    expect(run.code, run.stderr).toBe(0);
    const lines = uiLines(run.stdout);
    expect(lines[0]).toMatchObject({ type: 'version', command: 'reconcile' });
    expect(lines[1]).toMatchObject({
      type: 'reconcile_requested',
      daemon: new URL(daemon.url).origin,
      state: 'started',
    });
    const complete = lines.find((line) => line.type === 'reconcile_complete');
    expect(complete).toMatchObject({ ticket: lines[1]?.ticket, level: 'info' });
    expect(Number(complete?.pages_read)).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', outcome: 'finished', exit_code: 0 });
  });

  it('a refusal is a diagnostic, and the summary says exit 1', async () => {
    const wrong = join(dir, 'wrong-token');
    await writeFile(wrong, 'another-token-0123456789abcdef\n');

    const run = await runEdgesyncInProcess(['reconcile', '--daemon-url', daemon.url, '--format', 'json'], {
      env: { EDGESYNC_RECONCILE_TOKEN_FILE: wrong },
    });

    expect(run.code).toBe(1);
    const lines = uiLines(run.stdout);
    expect(lines.map((line) => line.type)).toEqual(['version', 'diagnostic', 'summary']);
    expect(lines[1]?.diagnostic).toMatchObject({ code: 'daemon_request_failed' });
    expect(lines[2]).toMatchObject({ outcome: 'daemon_request_failed', exit_code: 1 });
    expect(run.stdout).not.toContain('another-token');
  });
});
