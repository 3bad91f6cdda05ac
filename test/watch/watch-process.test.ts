import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import {
  assertBuilt,
  type DaemonProcess,
  eventually,
  type LiveRule,
  type RuleSpec,
  rulesManifest as rulesManifestOf,
  startDaemon,
} from './daemon-process.js';

const POLICY = 'ipp_WatchTestPolicy000000000001';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);

function _ruleWithCidr(cidr: string) {
  return (rules: LiveRule[]): LiveRule | undefined => rules.find((rule) => rule.cidr === cidr);
}

/**
 * What only a process shows: `edgesync watch` started as users start it, its
 * exit code on SIGTERM, its log lines and flags. What the daemon does
 * is tested in process (watch-daemon.test.ts and the other files on
 * daemon-harness.ts); SIGHUP, and a daemon that applies and exits 0 without
 * logging the API key, in daemon-liveness.test.ts.
 */
describe('edgesync watch (the daemon as a process against the emulator)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'watch tests' }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-'));
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('abandons a slow reconcile at --shutdown-timeout on SIGTERM and still exits 0', async () => {
    await emulator.close();
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] }, latencyMs: 5000 });
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    daemon = await startDaemon(emulator, [manifests, '--shutdown-timeout', '200ms'], dir);
    const running = daemon;
    // "watching" is logged just before the first reconcile starts; the emulator holds its requests for 5 s.
    await eventually(() => (running.stderr().includes('"msg":"watching"') ? true : undefined));

    const exitCode = await running.stop('SIGTERM');
    daemon = undefined;

    expect(exitCode).toBe(0);
    expect(running.stderr()).toContain('"in_flight":"abandoned"');
  });

  it('takes --no-color: pretty logs carry no ANSI colour even where colour is forced', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    const forced = { FORCE_COLOR: '1', NO_COLOR: undefined };
    const run = async (extra: readonly string[]): Promise<string> => {
      const started = await startDaemon(
        emulator,
        [manifests, '--interval', '1h', '--log-format', 'pretty', ...extra],
        dir,
        forced,
      );
      daemon = started;
      await eventually(() => (started.stderr().includes('reconcile finished') ? true : undefined));
      await started.stop('SIGTERM');
      daemon = undefined;
      return started.stderr();
    };

    const coloured = await run([]);
    const plain = await run(['--no-color']);

    expect(coloured).toContain('\u001b[');
    expect(plain).toContain('reconcile finished');
    expect(plain).not.toContain('\u001b[');
  });

  it('logs which directories it read at start, again on SIGHUP, and when a new one holds manifests', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(join(manifests, 'team-a'), { recursive: true });
    await mkdir(join(manifests, 'node_modules', 'dep'), { recursive: true });
    await writeFile(
      join(manifests, 'team-a', 'rules.yaml'),
      rulesManifest({ a: { cidr: '203.0.113.0/24' } }),
    );
    await writeFile(join(manifests, 'node_modules', 'dep', 'x.yaml'), 'not: a manifest\n');
    daemon = await startDaemon(emulator, [manifests, '--interval', '1h'], dir);
    const running = daemon;
    const said = (): { directories: string[]; skipped: string[] }[] =>
      running
        .stderr()
        .split('\n')
        .filter((line) => line.includes('"manifests read"'))
        .map((line) => JSON.parse(line) as { directories: string[]; skipped: string[] });

    const atStart = await eventually(() => (said().length === 1 ? said() : undefined));
    running.child.kill('SIGHUP');
    await eventually(() => (said().length === 2 ? true : undefined));
    await mkdir(join(manifests, 'team-b'));
    await writeFile(
      join(manifests, 'team-b', 'rules.yaml'),
      rulesManifest({ b: { cidr: '198.51.100.0/24' } }),
    );
    const afterNew = await eventually(() => (said().length === 3 ? said() : undefined));

    expect(atStart[0]?.directories).toEqual([join(manifests, 'team-a')]);
    expect(atStart[0]?.skipped).toContain('node_modules');
    expect(afterNew[1]?.directories).toEqual([join(manifests, 'team-a')]);
    expect(afterNew[2]?.directories).toEqual([join(manifests, 'team-a'), join(manifests, 'team-b')]);
  });
});
