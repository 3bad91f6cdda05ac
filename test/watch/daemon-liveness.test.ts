import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { assertBuilt, type DaemonProcess, eventually, listRules, startDaemon } from './daemon-process.js';
import { parsePrometheusText, sampleSum } from './prometheus-text.js';

const POLICY = 'ipp_LivenessTestPolicy000000001';
const RULES = `version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: 203.0.113.0/24\n    action: allow\n`;

async function reconcileCount(daemon: DaemonProcess): Promise<number> {
  return sampleSum(
    parsePrometheusText(await (await fetch(`${daemon.url}/metrics`)).text()),
    'edgesync_reconciles_total',
  );
}

describe('edgesync watch liveness and SIGHUP (the daemon as a process)', () => {
  let dir: string;
  let daemon: DaemonProcess | undefined;
  let emulator: RunningEmulator | undefined;
  let silent: Server | undefined;
  const sockets: Socket[] = [];

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-liveness-'));
    await mkdir(join(dir, 'manifests'));
    await writeFile(join(dir, 'manifests', 'rules.yaml'), RULES);
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator?.close();
    emulator = undefined;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()));
    silent = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('answers /healthz 503 once a reconcile hangs for over 3x --interval (a service that accepts and never answers)', async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent?.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const hanging = { url: `http://127.0.0.1:${address.port}`, apiKey: 'key' } as RunningEmulator;
    daemon = await startDaemon(hanging, ['manifests', '--interval', '1s', '--timeout', '1h'], dir);
    const running = daemon;
    const first = await fetch(`${running.url}/healthz`);

    const stuck = await eventually(async () => {
      const response = await fetch(`${running.url}/healthz`);
      return response.status === 503 ? response.text() : undefined;
    });

    expect(first.status).toBe(200);
    expect(stuck).toMatch(/^stuck: reconcile running for \d+ s, over 3x --interval\n$/);
  });

  it('re-reads the manifests on SIGHUP and keeps running (no exit 129); exits 0 on SIGTERM', async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
    const service = emulator;
    daemon = await startDaemon(service, ['manifests', '--interval', '1h'], dir);
    const running = daemon;
    await eventually(async () => ((await listRules(service)).length === 1 ? true : undefined));
    const before = await eventually(async () => {
      const status = (await (await fetch(`${running.url}/status`)).json()) as { last_reconcile: unknown };
      return status.last_reconcile === null ? undefined : reconcileCount(running);
    });

    running.child.kill('SIGHUP');
    await eventually(async () => ((await reconcileCount(running)) > before ? true : undefined));
    const health = await fetch(`${running.url}/healthz`);
    const exitCode = await running.stop('SIGTERM');
    daemon = undefined;

    expect(health.status).toBe(200);
    expect(running.stderr()).toContain('reload requested (SIGHUP)');
    expect(exitCode).toBe(0);
  });
});
