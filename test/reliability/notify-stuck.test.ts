import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import {
  assertBuilt,
  type DaemonProcess,
  eventually,
  getStatus,
  rulesManifest,
  startDaemon,
} from '../watch/daemon-process.js';
import { type SwitchableService, startSwitchableService } from '../watch/switchable-service.js';
import { eventsOf, startReceiver, type WebhookReceiver } from '../watch/webhook-receivers.js';

const POLICY = 'ipp_NotifyStuckTestPolicy000001';

describe('watch --notify: a stuck loop (the daemon as a process, a service that stops answering)', () => {
  let emulator: RunningEmulator | undefined;
  let hop: SwitchableService | undefined;
  let hook: WebhookReceiver | undefined;
  let dir: string | undefined;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => assertBuilt());
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await hook?.close();
    await hop?.close();
    await emulator?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('posts daemon_stuck once while a reconcile hangs past 3x --interval, and daemon_recovered once it ends', async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'stuck tests' }] } });
    hop = await startSwitchableService(emulator);
    hook = await startReceiver('ok', 'stuckToken0000000000001');
    dir = await mkdtemp(join(tmpdir(), 'edgesync-notify-stuck-'));
    await mkdir(join(dir, 'manifests'));
    await writeFile(
      join(dir, 'manifests/rules.yaml'),
      rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24' } }),
    );
    daemon = await startDaemon(
      hop.service,
      ['manifests', '--interval', '1s', '--rate-limit', '6000/60s', '--timeout', '60s'],
      dir,
      { EDGESYNC_NOTIFY: hook.url },
    );
    const running = daemon;
    await eventually(async () => ((await getStatus(running)).ready ? true : undefined));

    // Every read now takes 25 s: the forced re-read SIGHUP asks for hangs well past 3 s (3x --interval)
    // and past the notifier's 10 s heartbeat check, then ends.
    hop.delayReadsMs = 25_000;
    running.child.kill('SIGHUP');
    const receiver = hook;
    await eventually(() => (eventsOf(receiver).includes('daemon_stuck') ? true : undefined), 60_000);
    const healthz = await fetch(`${running.url}/healthz`);
    hop.delayReadsMs = 0;
    await eventually(() => (eventsOf(receiver).includes('daemon_recovered') ? true : undefined), 90_000);

    expect(healthz.status).toBe(503);
    expect(eventsOf(receiver).filter((event) => event.startsWith('daemon_'))).toEqual([
      'daemon_stuck',
      'daemon_recovered',
    ]);
  }, 180_000);
});
