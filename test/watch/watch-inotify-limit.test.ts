import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import type { DaemonStatusJson } from '../../src/watch/daemon-status.js';
import { assertBuilt, CLI, eventually, listRules, rulesManifest } from './daemon-process.js';

const POLICY = 'ipp_WatchTestPolicy000000000001';

/**
 * Linux keeps inotify's watch limit per user namespace
 * (/proc/sys/user/max_inotify_watches): in a namespace of its own the daemon
 * can be given two watches for real, and fs.watch throws ENOSPC past them,
 * as it does on a node whose fs.inotify.max_user_watches is used up. Where
 * unprivileged user namespaces are off, there is nothing to run.
 */
const OWN_NAMESPACE = ['--user', '--map-root-user'];
const canLimitWatches =
  process.platform === 'linux' &&
  spawnSync('unshare', [...OWN_NAMESPACE, 'sh', '-c', 'echo 2 > /proc/sys/user/max_inotify_watches'])
    .status === 0;

interface LimitedDaemon {
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
}

/**
 * `edgesync watch` in a user namespace allowed `watches` inotify watches,
 * raised to 8,192 once the file `raise` appears (by a shell left in the
 * namespace: from outside, its limit cannot be written).
 */
async function startLimitedDaemon(
  emulator: RunningEmulator,
  dir: string,
  watches: number,
  args: readonly string[],
): Promise<LimitedDaemon> {
  const limit = '/proc/sys/user/max_inotify_watches';
  const script = [
    `echo ${watches} > ${limit}`,
    // $$ is the daemon once the shell has exec'd it: the loop ends with it, raised or not.
    `(while [ ! -e raise ] && kill -0 $$ 2>/dev/null; do sleep 0.1; done; echo 8192 > ${limit}) &`,
    `exec "$0" "$@"`,
  ].join('\n');
  const child = spawn(
    'unshare',
    [
      ...OWN_NAMESPACE,
      'sh',
      '-c',
      script,
      process.execPath,
      CLI,
      'watch',
      ...args,
      '--api-url',
      emulator.url,
      '--listen',
      '127.0.0.1:0',
      '--debounce',
      '200ms',
    ],
    { cwd: dir, env: { PATH: process.env.PATH ?? '', EDGE_API_KEY: emulator.apiKey, NO_COLOR: '1' } },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`daemon exited with ${code} before listening:\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

describe.skipIf(!canLimitWatches)(
  'edgesync watch when the inotify watches run out (ENOSPC, for real)',
  () => {
    let emulator: RunningEmulator;
    let dir: string;
    let daemon: LimitedDaemon | undefined;

    beforeAll(() => assertBuilt());
    beforeEach(async () => {
      emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'watch tests' }] } });
      dir = await realpath(await mkdtemp(join(tmpdir(), 'edgesync-inotify-')));
    });
    afterEach(async () => {
      await daemon?.stop();
      daemon = undefined;
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('is not ready and says which directories are unwatched, reads them on each resync, and is ready once it can watch them', async () => {
      const manifests = join(dir, 'manifests');
      for (const team of ['a', 'b', 'c']) {
        await mkdir(join(manifests, team), { recursive: true });
        await writeFile(
          join(manifests, team, 'rules.yaml'),
          rulesManifest(POLICY, { [`${team}-office`]: { cidr: `198.51.100.${team.charCodeAt(0)}/32` } }),
        );
      }
      // Four directories to watch (the root, a, b, c) and the root's parent; two watches.
      daemon = await startLimitedDaemon(emulator, dir, 2, ['manifests', '--interval', '2s']);
      const running = daemon;
      const status = async (): Promise<DaemonStatusJson> =>
        (await (await fetch(`${running.url}/status`)).json()) as DaemonStatusJson;

      const blind = await eventually(async () => {
        const current = await status();
        return current.last_reconcile?.result === 'applied' ? current : undefined;
      }, 60_000);
      const readyz = await fetch(`${running.url}/readyz`);
      const readyzText = await readyz.text();
      await writeFile(
        join(manifests, 'c', 'rules.yaml'),
        rulesManifest(POLICY, { 'c-office': { cidr: '198.51.100.200/32' } }),
      );
      // No watch sees the edit in c/: the resync (every 2 s) reads it.
      await eventually(async () => {
        const rules = await listRules(emulator);
        return rules.some((rule) => rule.cidr === '198.51.100.200/32') ? rules : undefined;
      }, 60_000);
      await writeFile(join(dir, 'raise'), '');
      const watching = await eventually(async () => {
        const current = await status();
        return current.ready ? current : undefined;
      }, 60_000);
      const exitCode = await running.stop();
      daemon = undefined;

      expect(blind.ready).toBe(false);
      expect(blind.not_ready_reason).toMatch(
        /^cannot watch 3 manifest directories: the system's file watches are used up \(ENOSPC\); raise fs\.inotify\.max_user_watches/,
      );
      expect(blind.watcher).toEqual({
        watched_directories: 2,
        unwatched_directories: [
          { directory: dir, code: 'ENOSPC' },
          { directory: join(manifests, 'b'), code: 'ENOSPC' },
          { directory: join(manifests, 'c'), code: 'ENOSPC' },
        ],
      });
      expect(readyz.status).toBe(503);
      expect(readyzText).toContain('not ready: cannot watch 3 manifest directories');
      expect(watching.watcher).toEqual({ watched_directories: 5, unwatched_directories: [] });
      expect(watching.not_ready_reason).toBeNull();
      expect(running.stderr()).toContain('cannot watch some directories');
      expect(running.stderr()).toContain('watching every directory again');
      expect(exitCode).toBe(0);
    }, 180_000);
  },
);
