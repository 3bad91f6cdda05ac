import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  getStatus,
  listRules,
  type RuleSpec,
  rulesManifest as rulesManifestOf,
  startDaemon,
} from './daemon-process.js';
import { type SwitchableService, startSwitchableService } from './switchable-service.js';

const POLICY = 'ipp_WatchReconcileTestPolicy001';
const OWNER = 'reconcile-tests';
const TOKEN = 'reconcile-token-0123456789abcdef';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);

/** The forced-reconcile part of `/status`, once `ticket` is served. */
async function served(daemon: DaemonProcess, ticket: number) {
  return eventually(async () => {
    const forced = (await getStatus(daemon)).forced_reconcile;
    return forced !== undefined && forced.completed >= ticket ? forced : undefined;
  }, 30_000);
}

describe('full re-read on demand: SIGHUP, POST /reconcile, edgesync reconcile (the daemon as a process)', () => {
  let emulator: RunningEmulator;
  let hop: SwitchableService;
  let dir: string;
  let tokenFile: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    emulator = await startEmulator({
      seed: { ip_policies: [{ id: POLICY, description: 'reconcile tests' }] },
    });
    hop = await startSwitchableService(emulator);
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-reconcile-'));
    await mkdir(join(dir, 'manifests'));
    await writeFile(
      join(dir, 'manifests/rules.yaml'),
      rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'wanted' } }),
    );
    tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${TOKEN}\n`);
    // No background read in the test's time: only a forced re-read can see drift the cache does not hold.
    daemon = await startDaemon(
      hop.service,
      [
        join(dir, 'manifests'),
        '--owner',
        OWNER,
        '--interval',
        '1h',
        '--rate-limit',
        '6000/60s',
        '--reconcile-token-file',
        tokenFile,
      ],
      dir,
    );
    const running = daemon;
    await eventually(async () => ((await getStatus(running)).ready ? true : undefined));
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await hop.close();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('SIGHUP, then `edgesync reconcile --wait`, each correct drift made behind the daemon’s back in one forced re-read', async () => {
    const running = daemon as DaemonProcess;
    const [office] = await listRules(emulator);
    const drift = () =>
      callService(emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, { description: 'changed by hand' });
    const description = async () =>
      (await listRules(emulator)).find((rule) => rule.id === office?.id)?.description;

    await drift();
    running.child.kill('SIGHUP');
    const afterHangup = await served(running, 1);
    const restoredByHangup = await description();
    await drift();
    const command = await runEdgesyncProcess(['reconcile', '--daemon-url', running.url, '--wait'], {
      env: { EDGESYNC_RECONCILE_TOKEN_FILE: tokenFile },
      limitMs: 60_000,
    });
    const afterCommand = (await getStatus(running)).forced_reconcile;
    const restoredByCommand = await description();
    const logs = running.stderr();

    expect(afterHangup).toMatchObject({
      requested: 1,
      completed: 1,
      in_progress: null,
      last: { trigger: 'sighup', result: 'applied' },
    });
    expect(afterHangup.last?.pages_read).toBeGreaterThan(0);
    expect(restoredByHangup).toBe('wanted');
    expect(command.code).toBe(0);
    expect(command.stdout).toContain('(started, ticket 2)');
    expect(command.stdout).toMatch(/reconcile finished: applied after reading \d+ page\(s\)/);
    expect(afterCommand).toMatchObject({
      requested: 2,
      completed: 2,
      last: { trigger: 'forced', result: 'applied' },
    });
    expect(restoredByCommand).toBe('wanted');
    // Each trigger by its own name, in the log of the run it started.
    expect(logs).toMatch(/"trigger":"sighup"[^\n]*"msg":"reconcile finished"/);
    expect(logs).toMatch(/"trigger":"forced"[^\n]*"msg":"reconcile finished"/);
    expect(logs).not.toContain(TOKEN);
    expect(command.stdout + command.stderr).not.toContain(TOKEN);
  }, 90_000);

  it('refuses POST /reconcile without the token, with a wrong one, in the query, or from a browser origin, and never answers CORS', async () => {
    const running = daemon as DaemonProcess;
    const post = (headers: Record<string, string>, path = '/reconcile') =>
      fetch(`${running.url}${path}`, { method: 'POST', headers });

    const answers = [
      await post({}),
      await post({ Authorization: 'Bearer wrong-token-0123456789abcdef' }),
      await post({ Authorization: `Basic ${TOKEN}` }),
      await post({}, `/reconcile?token=${TOKEN}`),
      await post({ Authorization: `Bearer ${TOKEN}`, Origin: 'https://evil.example' }),
      await fetch(`${running.url}/reconcile`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
      }),
      await fetch(`${running.url}/reconcile`, { headers: { Authorization: `Bearer ${TOKEN}` } }),
    ];
    const forced = (await getStatus(running)).forced_reconcile;

    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 403, 405, 405]);
    expect(answers[0]?.headers.get('www-authenticate')).toBe('Bearer');
    for (const answer of answers) {
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    expect(forced?.requested).toBe(0);
    expect(running.stderr()).not.toContain(TOKEN);
  });

  it('coalesces requests during a forced reconcile into one more', async () => {
    const running = daemon as DaemonProcess;
    // A slow service: the first forced re-read is still reading when the next requests arrive.
    hop.delayReadsMs = 300;
    const post = async () =>
      (await (
        await fetch(`${running.url}/reconcile`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${TOKEN}` },
        })
      ).json()) as { ticket: number; state: string };

    const answers = [await post(), await post(), await post(), await post()];
    const forced = await served(running, 4);
    // The log reaches this process over a pipe of its own, after /status may already count the work done.
    const reReads = await eventually(() => {
      const found = running.stderr().match(/"msg":"full re-read finished"/g) ?? [];
      return found.length >= 2 ? found : undefined;
    });

    expect(answers).toEqual([
      { ticket: 1, state: 'started' },
      { ticket: 2, state: 'queued' },
      { ticket: 3, state: 'coalesced' },
      { ticket: 4, state: 'coalesced' },
    ]);
    expect(forced).toMatchObject({
      requested: 4,
      completed: 4,
      last: { trigger: 'forced', result: 'in-sync' },
    });
    expect(reReads).toHaveLength(2);
  });
});
