import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { useDaemonHarness } from './daemon-harness.js';
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

describe('edgesync watch and SIGHUP (the daemon as a process)', () => {
  let dir: string;
  let daemon: DaemonProcess | undefined;
  let emulator: RunningEmulator | undefined;

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
    await rm(dir, { recursive: true, force: true });
  });

  it('applies its manifests, re-reads them on SIGHUP and keeps running (no exit 129); exits 0 on SIGTERM, never logging the API key', async () => {
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
    expect(running.stderr()).not.toContain(service.apiKey);
  });
});

describe('edgesync watch liveness (in process)', () => {
  const startDaemon = useDaemonHarness();

  it('answers /healthz 503 once a reconcile hangs for over 3x --interval (a service that accepts and never answers)', async () => {
    const sockets: Socket[] = [];
    const running = await startDaemon({
      files: { 'manifests/rules.yaml': RULES },
      intervalMs: 1_000,
      requestTimeoutMs: 3_600_000,
      service: async () => {
        const silent = createServer((socket) => sockets.push(socket));
        await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
        const { port } = silent.address() as AddressInfo;
        return {
          service: { url: `http://127.0.0.1:${port}`, apiKey: 'key' } as RunningEmulator,
          close: async () => {
            for (const socket of sockets) socket.destroy();
            await new Promise<void>((resolve) => silent.close(() => resolve()));
          },
        };
      },
    });
    const first = await fetch(`${running.url}/healthz`);
    await running.advance(2_000);
    const running2s = await fetch(`${running.url}/healthz`);

    await running.advance(1_001);
    const stuck = await fetch(`${running.url}/healthz`);

    expect(first.status).toBe(200);
    expect(running2s.status).toBe(200);
    expect(stuck.status).toBe(503);
    expect(await stuck.text()).toMatch(/^stuck: reconcile running for \d+ s, over 3x --interval\n$/);
    expect(running.records).toEqual([]);
  });
});
