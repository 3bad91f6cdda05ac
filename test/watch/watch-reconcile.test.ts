import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { type DaemonHarness, useDaemonHarness } from './daemon-harness.js';
import { callService, listRules, type RuleSpec, rulesManifest as rulesManifestOf } from './daemon-process.js';
import { type SwitchableService, startSwitchableService } from './switchable-service.js';

const POLICY = 'ipp_WatchReconcileTestPolicy001';
const OWNER = 'reconcile-tests';
const TOKEN = 'reconcile-token-0123456789abcdef';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);

/** Each line the daemon logged at the end of a run, as `trigger result`. */
function finishedRuns(daemon: DaemonHarness): string[] {
  return daemon.logs
    .filter((line) => line.msg === 'reconcile finished')
    .map((line) => `${line.trigger} ${line.result}`);
}

describe('full re-read on demand: SIGHUP, POST /reconcile, edgesync reconcile (in process)', () => {
  const startDaemon = useDaemonHarness();
  /** A hop in front of the emulator that a test can slow down. */
  let hop: SwitchableService | undefined;

  /** No background read in the test's time: only a forced re-read can see drift the cache does not hold. */
  const start = async (): Promise<DaemonHarness> => {
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'reconcile tests' }] } },
      service: async (emulator) => {
        hop = await startSwitchableService(emulator);
        return { service: hop.service, close: () => hop?.close() ?? Promise.resolve() };
      },
      owner: OWNER,
      reconcileToken: TOKEN,
      files: {
        'manifests/rules.yaml': rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'wanted' } }),
      },
    });
    await daemon.record(1, (record) => record.ready);
    return daemon;
  };

  it('SIGHUP, then `edgesync reconcile --wait`, each correct drift made behind the daemon’s back in one forced re-read', async () => {
    const running = await start();
    const emulator = running.emulator;
    const [office] = await listRules(emulator);
    const drift = () =>
      callService(emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, { description: 'changed by hand' });
    const description = async () =>
      (await listRules(emulator)).find((rule) => rule.id === office?.id)?.description;

    await drift();
    const next = running.records.length + 1;
    running.reload();
    await running.record(next, (record) => record.lastReconcile?.trigger === 'sighup');
    const afterHangup = (await running.status()).forced_reconcile;
    const restoredByHangup = await description();
    await drift();
    const command = await runEdgesyncInProcess(['reconcile', '--daemon-url', running.url, '--wait'], {
      env: { EDGESYNC_RECONCILE_TOKEN_FILE: join(running.dir, 'token') },
    });
    const afterCommand = (await running.status()).forced_reconcile;
    const restoredByCommand = await description();
    const logs = JSON.stringify(running.logs);

    expect(afterHangup).toMatchObject({
      requested: 1,
      completed: 1,
      in_progress: null,
      last: { trigger: 'sighup', result: 'applied' },
    });
    expect(afterHangup?.last?.pages_read).toBeGreaterThan(0);
    expect(restoredByHangup).toBe('wanted');
    expect(command.code, command.stderr).toBe(0);
    expect(command.stdout).toContain('(started, ticket 2)');
    expect(command.stdout).toMatch(/reconcile finished: applied after reading \d+ page\(s\)/);
    expect(afterCommand).toMatchObject({
      requested: 2,
      completed: 2,
      last: { trigger: 'forced', result: 'applied' },
    });
    expect(restoredByCommand).toBe('wanted');
    // Each trigger by its own name, in the log of the run it started.
    expect(finishedRuns(running)).toEqual(expect.arrayContaining(['sighup applied', 'forced applied']));
    expect(logs).not.toContain(TOKEN);
    expect(command.stdout + command.stderr).not.toContain(TOKEN);
  });

  it('refuses POST /reconcile without the token, with a wrong one, in the query, or from a browser origin, and never answers CORS', async () => {
    const running = await start();
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
    const forced = (await running.status()).forced_reconcile;

    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 403, 405, 405]);
    expect(answers[0]?.headers.get('www-authenticate')).toBe('Bearer');
    for (const answer of answers) {
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    expect(forced?.requested).toBe(0);
    expect(JSON.stringify(running.logs)).not.toContain(TOKEN);
  });

  it('coalesces requests during a forced reconcile into one more', async () => {
    const running = await start();
    // A slow service: the first forced re-read is still reading when the next requests arrive.
    if (hop !== undefined) hop.delayReadsMs = 300;
    const post = async () =>
      (await (
        await fetch(`${running.url}/reconcile`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${TOKEN}` },
        })
      ).json()) as { ticket: number; state: string };
    const next = running.records.length + 1;

    const answers = [await post(), await post(), await post(), await post()];
    await running.record(next + 1);
    const forced = (await running.status()).forced_reconcile;
    const reReads = running.logs.filter((line) => line.msg === 'full re-read finished');

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
