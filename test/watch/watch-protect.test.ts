import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import type { DaemonStatusJson } from '../../src/watch/daemon-status.js';
import { assertBuilt, type DaemonProcess, eventually, listRules, startDaemon } from './daemon-process.js';

const POLICY = 'ipp_WatchProtectPolicy000000001';

function manifest(withGuarded: boolean): string {
  const guarded = `  guarded:\n    ip_policy_id: ${POLICY}\n    cidr: 10.9.2.0/24\n    action: deny\n    protect: true\n`;
  const keep = `  keep:\n    ip_policy_id: ${POLICY}\n    cidr: 10.9.1.0/24\n    action: deny\n`;
  return `version: 1\nip_policy_rules:\n${keep}${withGuarded ? guarded : ''}`;
}

describe('edgesync watch and protect: true', () => {
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

  it('never deletes a protected rule whose entry is removed, and reports the refusal', async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'protect tests' }] } });
    const running = emulator;
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-protect-'));
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    const file = join(manifests, 'rules.yaml');
    await writeFile(file, manifest(true));
    daemon = await startDaemon(running, [manifests, '--interval', '1h', '--max-destroy', '100'], dir);
    const watching = daemon;
    await eventually(async () => ((await listRules(running)).length === 2 ? true : undefined));

    await writeFile(file, manifest(false));
    const refused = await eventually(async () => {
      const status = (await (await fetch(`${watching.url}/status`)).json()) as DaemonStatusJson;
      return status.last_plan?.refusal ? status : undefined;
    });

    expect(refused.last_plan?.refusal?.code).toBe('protected');
    expect(refused.last_plan?.refusal?.message).toContain('ip_policy_rules.guarded');
    expect(refused.last_plan?.applied).toBe(false);
    expect((await listRules(running)).map((rule) => rule.cidr).sort()).toEqual([
      '10.9.1.0/24',
      '10.9.2.0/24',
    ]);
  });
});
