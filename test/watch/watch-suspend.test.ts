import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SUSPENDED_DESCRIPTION, saysSuspended } from '../../src/git-host/commit-status-text.js';
import { parseWebhookFile } from '../../src/notify/webhook-target.js';
import { commitVerdict } from '../../src/watch/commit-status/commit-verdict.js';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { type DaemonHarness, useDaemonHarness } from './daemon-harness.js';
import { callService, listRules, type RuleSpec, rulesManifest as rulesManifestOf } from './daemon-process.js';
import { eventsOf, notifications, startReceiver, type WebhookReceiver } from './webhook-receivers.js';

const POLICY = 'ipp_WatchSuspendTestPolicy00001';
const OWNER = 'suspend-tests';
const SUSPEND_TOKEN = 'suspend-token-NEVER-PRINTED-0123456789';
const RECONCILE_TOKEN = 'reconcile-token-NEVER-PRINTED-987654';
const COMMIT = 'c0ffee0000000000000000000000000000000001';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);

/** Writes the daemon sent since start, by its own count. */
async function writesSent(daemon: DaemonHarness): Promise<number> {
  return (await daemon.status()).live_cache?.requests_by_purpose.write ?? 0;
}

/** `edgesync suspend` or `resume` against the daemon, in process, with the token of `file` (the suspend token's by default). */
function ask(
  daemon: DaemonHarness,
  action: 'suspend' | 'resume',
  file = 'suspend-token',
  extra: string[] = [],
) {
  return runEdgesyncInProcess([action, '--daemon-url', daemon.url, ...extra], {
    env: { EDGESYNC_SUSPEND_TOKEN_FILE: join(daemon.dir, file) },
  });
}

describe('suspend and resume (in process)', () => {
  const startDaemon = useDaemonHarness();
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  const start = async (options: { readonly suspended?: boolean } = {}): Promise<DaemonHarness> => {
    const daemon = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'suspend tests' }] } },
      owner: OWNER,
      reconcileToken: RECONCILE_TOKEN,
      suspendToken: SUSPEND_TOKEN,
      ...options,
      prepare: async (dir) => {
        await mkdir(join(dir, '.git'), { recursive: true });
        await writeFile(join(dir, '.git', 'HEAD'), `${COMMIT}\n`);
      },
      files: {
        'manifests/rules.yaml': rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'wanted' } }),
      },
    });
    await daemon.record(1);
    return daemon;
  };

  it('while suspended, reads and reports drift and what Git asks for, and sends no write; resume applies both', async () => {
    const daemon = await start();
    const [office] = await listRules(daemon.emulator);
    const description = async () =>
      (await listRules(daemon.emulator)).find((rule) => rule.id === office?.id)?.description;

    const suspended = await ask(daemon, 'suspend');
    const writesBefore = await writesSent(daemon);
    await callService(daemon.emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, { description: 'by hand' });
    let next = daemon.records.length + 1;
    daemon.reload();
    const driftSeen = await daemon.record(next, (record) => record.lastReconcile?.trigger === 'sighup');
    // In a file of its own: the office entry's file stays as it was, so its drift stays drift.
    const pendingSeen = await daemon.change(
      () =>
        daemon.write(
          'manifests/lab.yaml',
          rulesManifest({ lab: { cidr: '198.51.100.0/24', description: 'new' } }),
        ),
      (record) => record.lastReconcile?.trigger === 'change',
    );
    const whileSuspended = await daemon.status();
    const metricsSuspended = await daemon.metrics();
    const page = await (await fetch(`${daemon.url}/`)).text();
    const writesWhileSuspended = (await writesSent(daemon)) - writesBefore;
    const untouched = await description();
    const rulesWhileSuspended = (await listRules(daemon.emulator)).length;
    next = daemon.records.length + 1;
    const resumed = await ask(daemon, 'resume');
    const applied = await daemon.record(next, (record) => record.lastReconcile?.result === 'applied');
    const afterResume = await daemon.status();
    const metricsResumed = await daemon.metrics();

    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.stdout).toContain('suspended http://127.0.0.1:');
    expect(driftSeen.lastReconcile?.result).toBe('drift');
    expect(driftSeen.differences.drift).toEqual([expect.stringContaining('office')]);
    expect(pendingSeen.run?.input.mode).toBe('suspended');
    expect(whileSuspended.suspended).toBe(true);
    expect(whileSuspended.suspension).toMatchObject({
      by: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/),
    });
    expect(whileSuspended.differences?.pending).toEqual([expect.stringContaining('lab')]);
    expect(whileSuspended.differences?.drift).toEqual([expect.stringContaining('office')]);
    expect(metricsSuspended.find((sample) => sample.name === 'edgesync_suspended')?.value).toBe(1);
    expect(page).toContain('suspended since');
    expect(page).toContain('suspended, nothing is applied');
    expect(writesWhileSuspended).toBe(0);
    expect(untouched).toBe('by hand');
    expect(rulesWhileSuspended).toBe(1);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('resumed http://127.0.0.1:');
    expect(applied.run?.input.mode).toBe('enforce');
    expect(afterResume.suspended).toBe(false);
    expect(afterResume.suspension).toBeNull();
    expect(metricsResumed.find((sample) => sample.name === 'edgesync_suspended')?.value).toBe(0);
    expect(await description()).toBe('wanted');
    expect((await listRules(daemon.emulator)).length).toBe(2);
    const said = daemon.logs.filter((line) => line.component === 'daemon' && typeof line.action === 'string');
    expect(said.map((line) => [line.action, typeof line.from])).toEqual([
      ['suspend', 'string'],
      ['resume', 'string'],
    ]);
  });

  it('the commit of a suspended run is pending "suspended", which status --wait-commit stops on at once (exit 1)', async () => {
    const daemon = await start({ suspended: true });
    const first = daemon.records[0];

    const verdict = first === undefined ? null : commitVerdict(first);
    const waited = await runEdgesyncInProcess([
      'status',
      '--daemon-url',
      daemon.url,
      '--wait-commit',
      COMMIT,
      '--wait-timeout',
      '1m',
      '--format',
      'json',
    ]);

    expect(first?.lastReconcile?.result).toBe('pending');
    expect(verdict).toEqual({
      commit: COMMIT,
      status: { state: 'pending', description: SUSPENDED_DESCRIPTION },
    });
    expect(verdict !== null && saysSuspended(verdict.status)).toBe(true);
    expect(waited.code).toBe(1);
    expect(JSON.parse(waited.stdout)).toMatchObject({ result: 'suspended' });
    expect(waited.stderr).toContain('the daemon is suspended');
  });

  it('--suspended starts suspended and says so; a restart without it resumes and says so', async () => {
    const first = await start({ suspended: true });
    const firstStatus = await first.status();
    const firstRules = await listRules(first.emulator);
    const second = await start();
    const secondRecord = await second.record(1);

    expect(first.records[0]?.run?.input.mode).toBe('suspended');
    expect(firstStatus).toMatchObject({ suspended: true, suspension: { by: '--suspended' } });
    expect(firstRules).toEqual([]);
    expect(first.logs.map((line) => line.msg)).toContain(
      'started suspended (--suspended): the daemon reads and reports drift, and sends no write until edgesync resume',
    );
    expect(secondRecord.lastReconcile?.result).toBe('applied');
    expect(second.logs.find((line) => line.suspended === false)?.msg).toMatch(
      /^not suspended: a suspension made by edgesync suspend lives in memory and ended with the last restart/,
    );
  });

  it('refuses the reconcile token (saying why), no token, a wrong one, a browser origin and other methods, and never answers CORS', async () => {
    const daemon = await start();
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${daemon.url}${path}`, { method: 'POST', headers });

    const answers = [
      await post('/suspend', { Authorization: `Bearer ${RECONCILE_TOKEN}` }),
      await post('/suspend', {}),
      await post('/suspend', { Authorization: 'Bearer wrong-token-0123456789abcdef' }),
      await post(`/suspend?token=${SUSPEND_TOKEN}`, {}),
      await post('/suspend', { Authorization: `Bearer ${SUSPEND_TOKEN}`, Origin: 'https://evil.example' }),
      await fetch(`${daemon.url}/suspend`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
      }),
      await fetch(`${daemon.url}/resume`, { headers: { Authorization: `Bearer ${SUSPEND_TOKEN}` } }),
      await post('/resume', { Authorization: `Bearer ${RECONCILE_TOKEN}` }),
    ];
    const bodies = await Promise.all(answers.map(async (answer) => answer.text()));
    const command = await runEdgesyncInProcess(['suspend', '--daemon-url', daemon.url], {
      env: { EDGESYNC_SUSPEND_TOKEN_FILE: join(daemon.dir, 'token') },
    });
    const status = await daemon.status();

    expect(answers.map((answer) => answer.status)).toEqual([403, 401, 401, 401, 403, 405, 405, 403]);
    expect(bodies[0]).toContain('that is the reconcile token');
    expect(bodies[0]).toContain('stronger power than forcing a re-read');
    expect(answers[1]?.headers.get('www-authenticate')).toBe('Bearer');
    for (const answer of answers) {
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    expect(command.code).toBe(1);
    expect(command.stderr).toContain('that is the reconcile token');
    expect(status.suspended).toBe(false);
    expect(daemon.records.every((record) => record.run?.input.mode !== 'suspended')).toBe(true);
  });

  it('a second suspend changes nothing and says since when; the token never shows in logs, /status, the page or metrics', async () => {
    const daemon = await start();

    const once = await ask(daemon, 'suspend', 'suspend-token', ['--format', 'json']);
    const twice = await ask(daemon, 'suspend');
    const resumed = await ask(daemon, 'resume');
    const again = await ask(daemon, 'resume');
    const shown = [
      JSON.stringify(daemon.logs),
      JSON.stringify(await daemon.status()),
      await (await fetch(`${daemon.url}/`)).text(),
      await (await fetch(`${daemon.url}/metrics`)).text(),
      ...[once, twice, resumed, again].map((run) => run.stdout + run.stderr),
    ].join('\n');

    expect(JSON.parse(once.stdout)).toMatchObject({ action: 'suspend', suspended: true, changed: true });
    expect(twice.code).toBe(0);
    expect(twice.stdout).toMatch(/was already suspended since \d{4}-\d\d-\d\dT.* by /);
    expect(resumed.stdout).toContain('resumed');
    expect(again.stdout).toContain('was not suspended');
    expect(shown).not.toContain(SUSPEND_TOKEN);
    expect(shown).not.toContain(RECONCILE_TOKEN);
  });

  it('each suspend and resume is a notification naming who asked; a second suspend is none', async () => {
    const receiver = await startReceiver('ok', 'suspendNotifyToken00001');
    receivers.push(receiver);
    const daemon = await startDaemon({
      owner: OWNER,
      suspendToken: SUSPEND_TOKEN,
      notify: {
        targets: parseWebhookFile(`json ${receiver.url}`, 'notify'),
        timeoutMs: 5000,
        retries: 0,
        expiryWindowMs: 0,
        scrub: (text) => text,
        statusPageUrl: null,
        instance: null,
        service: '127.0.0.1',
      },
    });
    await daemon.record(1);

    await ask(daemon, 'suspend');
    await ask(daemon, 'suspend');
    await ask(daemon, 'resume');
    await receiver.until(() => eventsOf(receiver).includes('daemon_resumed'));
    const bodies = notifications(receiver).filter((body) => String(body.event).startsWith('daemon_'));

    expect(bodies.map((body) => [body.event, body.severity])).toEqual([
      ['daemon_suspended', 'warning'],
      ['daemon_resumed', 'info'],
    ]);
    expect(String(bodies[0]?.summary)).toMatch(/^suspended by (::ffff:)?127\.0\.0\.1: drift is reported/);
    expect(String(bodies[1]?.summary)).toMatch(/^resumed by (::ffff:)?127\.0\.0\.1/);
    expect(receiver.bodies.join('\n')).not.toContain(SUSPEND_TOKEN);
  });

  it('/suspend is off without --suspend-token-file', async () => {
    const daemon = await startDaemon({ owner: OWNER });

    const answer = await fetch(`${daemon.url}/suspend`, { method: 'POST' });

    expect(answer.status).toBe(404);
    expect(await answer.text()).toContain('start the daemon with --suspend-token-file');
  });
});
