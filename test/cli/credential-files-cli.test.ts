import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { ROOT, runEdgesyncProcess } from '../support/edgesync-cli.js';
import { assertBuilt, type DaemonProcess, eventually, startDaemon } from '../watch/daemon-process.js';

const TOKEN = 'credential-files-test-token-0123456789';
const PLAN_KEY = 'credential-files-test-plan-key-0123456789abcdef';
const HOOK_TOKEN = 'T0CRED/B0CRED/h00kT0kenNeverShown';

/**
 * Files that hold a credential, as the commands and the daemon read them:
 * one others can read is used, with a warning at start that names the flag,
 * the file and who can read it, never what it holds; one laid out as a
 * Kubernetes Secret volume (links into `..data`, mode 0440, the process's
 * own group) is read through its links, with no warning.
 */
describe('credential files readable by others are warned about at start (processes)', () => {
  let dir: string;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-credentials-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** `name` in the test's directory holding `text`, with exactly `mode` (writeFile's mode passes the umask). */
  async function credential(name: string, text: string, mode: number): Promise<string> {
    const file = join(dir, name);
    await writeFile(file, text);
    await chmod(file, mode);
    return file;
  }

  /** A Secret volume as the kubelet writes one: `mount/..data -> ..TIMESTAMP`, `mount/KEY -> ..data/KEY`, 0440. */
  async function secretVolume(mount: string, key: string, text: string): Promise<string> {
    const version = join(mount, '..2026_11_29_12_00_00.000000001');
    await mkdir(version, { recursive: true });
    await writeFile(join(version, key), text);
    await chmod(join(version, key), 0o440);
    await symlink('..2026_11_29_12_00_00.000000001', join(mount, '..data'));
    await symlink(join('..data', key), join(mount, key));
    return join(mount, key);
  }

  describe('edgesync reconcile', () => {
    let daemon: Server;
    let url: string;
    beforeEach(async () => {
      daemon = createServer((request, response) => {
        request.resume();
        response.writeHead(202, { 'Content-Type': 'application/json' });
        response.end('{"ticket":1,"state":"started"}');
      });
      await new Promise<void>((resolve) => daemon.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(daemon.address() as AddressInfo).port}`;
    });
    afterEach(async () => {
      await new Promise<void>((resolve) => daemon.close(() => resolve()));
    });

    it('warns about a token file with mode 0666, and still sends the request', async () => {
      const file = await credential('token', `${TOKEN}\n`, 0o666);

      const run = await runEdgesyncProcess(
        ['reconcile', '--daemon-url', url, '--reconcile-token-file', file],
        {
          limitMs: 30_000,
        },
      );

      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        `warning: --reconcile-token-file: ${file} is readable by every user (mode 0666), and it holds a credential: chmod 0600`,
      );
      expect(run.stdout + run.stderr).not.toContain(TOKEN);
    });

    it('says nothing of a token in a Secret volume (links, 0440, its own group)', async () => {
      const file = await secretVolume(join(dir, 'secret'), 'reconcile-token', TOKEN);

      const run = await runEdgesyncProcess(
        ['reconcile', '--daemon-url', url, '--reconcile-token-file', file],
        {
          limitMs: 30_000,
        },
      );

      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('warning');
    });
  });

  it('plan --out warns about a plan key file with mode 0644', async () => {
    const key = await credential('plan.key', PLAN_KEY, 0o644);

    const run = await runEdgesyncProcess(
      [
        'plan',
        'examples/manifests',
        '--emulator',
        '--emulator-seed',
        'examples/emulator-seed.yaml',
        '--out',
        join(dir, 'plan.json'),
        '--plan-key-file',
        key,
      ],
      { cwd: ROOT, limitMs: 60_000 },
    );

    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`warning: --plan-key-file: ${key} is readable by every user (mode 0644)`);
    expect(run.stdout + run.stderr).not.toContain(PLAN_KEY);
  });

  describe('edgesync watch', () => {
    let emulator: RunningEmulator;
    let running: DaemonProcess | undefined;
    beforeEach(async () => {
      emulator = await startEmulator({});
      await mkdir(join(dir, 'manifests'));
      await writeFile(join(dir, 'manifests/empty.yaml'), 'version: 1\n');
    });
    afterEach(async () => {
      await running?.stop('SIGKILL');
      running = undefined;
      await emulator.close();
    });

    /** The daemon's warnings about credential files, once it has listened. */
    async function warningsOf(args: readonly string[]): Promise<Record<string, unknown>[]> {
      running = await startDaemon(emulator, [join(dir, 'manifests'), '--interval', '1h', ...args], dir);
      const daemon = running;
      await eventually(() => (daemon.stderr().includes('"msg":"watching"') ? true : undefined));
      const lines = daemon
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(daemon.stderr()).not.toContain(TOKEN);
      expect(daemon.stderr()).not.toContain(HOOK_TOKEN);
      return lines.filter((line) => line.msg === 'a credential file others can read');
    }

    it('warns about a token file with mode 0666 and a notify file with mode 0644, naming each', async () => {
      const token = await credential('token', TOKEN, 0o666);
      const notify = await credential('notify', `slack http://127.0.0.1:9/hooks/${HOOK_TOKEN}\n`, 0o644);

      const warnings = await warningsOf(['--reconcile-token-file', token, '--notify-file', notify]);

      expect(warnings).toEqual([
        expect.objectContaining({
          level: 'warn',
          flag: '--notify-file',
          file: notify,
          exposure: 'readable by every user (mode 0644)',
        }),
        expect.objectContaining({
          level: 'warn',
          flag: '--reconcile-token-file',
          file: token,
          exposure: 'readable by every user (mode 0666)',
        }),
      ]);
    });

    it('says nothing of credential files in a Secret volume', async () => {
      const token = await secretVolume(join(dir, 'secret'), 'reconcile-token', TOKEN);

      const warnings = await warningsOf(['--reconcile-token-file', token]);

      expect(warnings).toEqual([]);
    });
  });
});
