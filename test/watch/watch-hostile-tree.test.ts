import { mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { assertBuilt, type DaemonProcess, eventually, listRules, startDaemon } from './daemon-process.js';

const POLICY = 'ipp_HostileTreePolicy0000000001';
/** The bound on the daemon's resident memory under hostile trees. */
const RSS_LIMIT_BYTES = 150 * 1024 * 1024;

function rules(cidr: string): string {
  return `version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: ${cidr}\n    action: allow\n`;
}

/** Resident set size of a process, from /proc/PID/status (VmRSS, in kB). */
async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kilobytes) * 1024;
}

async function healthz(daemon: DaemonProcess): Promise<number> {
  const response = await fetch(`${daemon.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
  await response.arrayBuffer();
  return response.status;
}

/**
 * A hostile tree, case 1: `ln -s . d/loop` and `ln -s ../d d/up` in a watched
 * directory took the daemon from 89 MB to 905 MB in 12 s, stopped /healthz,
 * ignored SIGTERM and never applied a change made before. Here the daemon
 * starts with loops in place, gets more while running, then a link to `/`.
 */
describe('edgesync watch on a tree with symlink loops (as a process)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-loops-'));
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('applies changes, keeps memory bounded, answers /healthz and exits 0 on SIGTERM', async () => {
    const d = join(dir, 'd');
    await mkdir(join(d, 'sub'), { recursive: true });
    await writeFile(join(d, 'rules.yaml'), rules('198.51.100.0/24'));
    await symlink('.', join(d, 'loop'));
    await symlink(join('..', 'd'), join(d, 'up'));
    daemon = await startDaemon(emulator, ['d', '--interval', '1h'], dir);
    const pid = daemon.child.pid ?? 0;
    const samples: number[] = [];
    const sample = async (): Promise<void> => {
      samples.push(await residentBytes(pid));
      expect(await healthz(daemon as DaemonProcess)).toBe(200);
    };

    await eventually(async () => (await listRules(emulator)).find((rule) => rule.cidr === '198.51.100.0/24'));
    await sample();
    await writeFile(join(d, 'rules.yaml'), rules('203.0.113.0/24'));
    await symlink('..', join(d, 'sub', 'back'));
    await symlink(join('..', '..', 'd'), join(d, 'sub', 'up'));
    await symlink('sub', join(d, 'loop2'));
    await eventually(async () => {
      await sample();
      return (await listRules(emulator)).find((rule) => rule.cidr === '203.0.113.0/24');
    });
    await symlink('/', join(d, 'everything'));
    for (let round = 0; round < 10; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await sample();
    }
    await unlink(join(d, 'everything'));
    await writeFile(join(d, 'rules.yaml'), rules('192.0.2.0/24'));
    await eventually(async () => {
      await sample();
      return (await listRules(emulator)).find((rule) => rule.cidr === '192.0.2.0/24');
    });
    const code = await daemon.stop('SIGTERM');

    expect(code).toBe(0);
    expect(Math.max(...samples)).toBeLessThan(RSS_LIMIT_BYTES);
    expect(daemon.stderr()).toContain('outside the manifest root');
  });
});
