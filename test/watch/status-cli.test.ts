import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';
import { type DaemonHarness, useDaemonHarness } from './daemon-harness.js';
import { assertBuilt } from './daemon-process.js';

const HAS_GIT = spawnSync('git', ['--version']).status === 0;
const POLICY = 'ipp_StatusCliTestPolicy00000001';
const OWNER = 'status-test';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

function rules(cidr: string, extra = ''): string {
  return `version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: ${cidr}\n    action: allow\n${extra}`;
}

/**
 * `edgesync status` against a real daemon (`edgesync watch` as a process)
 * watching a real git checkout: the screen, the JSON, and `--wait-commit`
 * for a commit that goes live, a descendant, one that fails, and one the
 * daemon never reads.
 */
describe.skipIf(!HAS_GIT)('edgesync status against a running daemon', () => {
  let dir: string;
  let repo: string;
  /** The daemon's checkout: a clone of `repo`, pulled as a deploy would pull it. */
  let live: string;
  let emulator: RunningEmulator;
  /** The daemon in this process, on the wall clock: the commands run as processes and wait on it. */
  let daemon: DaemonHarness;
  const startDaemon = useDaemonHarness('all');

  const status = (args: readonly string[], limitMs = 60_000) =>
    runEdgesyncProcess(['status', '--daemon-url', daemon.url, ...args], { cwd: repo, limitMs });
  /** A commit on the current branch of `repo`; the daemon's checkout gets it with `pull`. */
  const commit = async (file: string, text: string, message: string): Promise<string> => {
    await writeFile(join(repo, 'manifests', file), text);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', message);
    return git(repo, 'rev-parse', 'HEAD');
  };
  const deploy = (): void => {
    git(live, 'pull', '-q', '--ff-only');
  };

  beforeAll(async () => {
    assertBuilt();
    daemon = await startDaemon({
      realTime: true,
      emulator: { seed: { ip_policies: [{ id: POLICY }] } },
      owner: OWNER,
      cwd: 'live',
      paths: ['manifests'],
      prepare: async (root) => {
        repo = join(root, 'repo');
        await mkdir(join(repo, 'manifests'), { recursive: true });
        git(repo, 'init', '-q', '-b', 'main');
        await commit('rules.yaml', rules('203.0.113.0/24'), 'one');
        git(root, 'clone', '-q', repo, join(root, 'live'));
      },
    });
    dir = daemon.dir;
    live = join(dir, 'live');
    emulator = daemon.emulator;
  });

  it('shows owner, mode, live commit, last reconcile, cache and budget on one screen, and the same as JSON', async () => {
    const head = git(live, 'rev-parse', 'HEAD');
    await daemon.record(1, (record) => record.git.lastAppliedCommit === head);

    const text = await status([]);
    const json = await status(['--format', 'json']);
    const fromEnv = await runEdgesyncProcess(['status'], {
      cwd: repo,
      env: { EDGESYNC_DAEMON_URL: daemon.url },
    });

    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^owner +${OWNER}$`, 'm'));
    expect(text.stdout).toMatch(/^mode +enforce$/m);
    expect(text.stdout).toMatch(new RegExp(`^live commit +${head} \\(\\d+s ago\\)$`, 'm'));
    expect(text.stdout).toMatch(/^last reconcile +applied \(/m);
    expect(text.stdout).toMatch(/^skipped +none$/m);
    expect(text.stdout).toMatch(/^cache +\d+ objects, /m);
    expect(text.stdout).toMatch(/^budget +full reads take at most 25% /m);
    expect(text.stdout.split('\n').length).toBeLessThan(25);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      daemon_url: daemon.url,
      owner: OWNER,
      mode: 'enforce',
      git: { last_applied_commit: head, checkout_commit: head },
      last_reconcile: { result: 'applied' },
      skipped_entries: [],
    });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toMatch(
      new RegExp(`^daemon +${daemon.url} \\(edgesync \\d+\\.\\d+\\.\\d+\\)$`, 'm'),
    );
  });

  it('--wait-commit exits 0 once the commit is live, and for an older commit once a descendant is', async () => {
    const before = git(repo, 'rev-parse', 'HEAD');
    const next = await commit('rules.yaml', rules('198.51.100.0/24'), 'two');
    deploy();

    const waited = await status(['--wait-commit', next, '--wait-timeout', '30s']);
    const older = await status(['--wait-commit', before.slice(0, 10), '--wait-timeout', '5s']);

    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toContain(`commit ${next.slice(0, 12)} is live on ${daemon.url}`);
    expect(older.code, older.stderr).toBe(0);
    expect(older.stdout).toContain(`(live commit ${next})`);
  });

  it('apply --daemon-url refuses (exit 4, nothing read or sent) when that daemon enforces the same owner, and applies for another owner', async () => {
    const env = { EDGE_API_URL: emulator.url, EDGE_API_KEY: emulator.apiKey };
    const other = join(dir, 'other');
    await mkdir(other, { recursive: true });
    await writeFile(join(other, 'rules.yaml'), rules('192.0.2.0/24').replace('office', 'elsewhere'));

    const same = await runEdgesyncProcess(
      ['apply', 'manifests', '--owner', OWNER, '--yes', '--daemon-url', daemon.url],
      { cwd: live, env },
    );
    const another = await runEdgesyncProcess(['apply', other, '--owner', 'someone-else', '--yes'], {
      cwd: live,
      env: { ...env, EDGESYNC_DAEMON_URL: daemon.url },
    });

    expect(same.code).toBe(4);
    expect(same.stderr).toContain(
      `the daemon at ${daemon.url} enforces owner "${OWNER}" and applies every merged commit itself`,
    );
    expect(same.stdout).toBe('');
    expect(same.stderr).not.toContain('Read ');
    expect(another.stderr).toContain(
      `the daemon at ${daemon.url} enforces another owner (owner "${OWNER}", mode enforce): applying`,
    );
    expect(another.code, another.stderr).toBe(0);
    expect(another.stdout).toContain('Apply complete: 1 created');
  });

  it('--wait-commit fails at once with file:line when the daemon reports the commit invalid, and at the timeout for a commit it never reads', async () => {
    const good = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'elsewhere');
    const unread = await commit(
      'other.yaml',
      rules('192.0.2.0/24').replace('office', 'lab'),
      'not checked out',
    );
    git(repo, 'checkout', '-q', 'main');
    const broken = await commit('rules.yaml', rules('198.51.100.0/33'), 'broken');
    deploy();

    const failed = await status(['--wait-commit', broken, '--wait-timeout', '60s', '--format', 'json']);
    const timedOut = await status(['--wait-commit', unread, '--wait-timeout', '2s']);
    const report = JSON.parse(failed.stdout) as { result: string; details: string[]; live_commit: string };

    expect(failed.code).toBe(1);
    expect(report.result).toBe('failed');
    expect(report.live_commit).toBe(good);
    expect(report.details.join('\n')).toMatch(
      /^manifests\/rules\.yaml:5:5: ip_policy_rules\.office\.cidr: prefix \/33/m,
    );
    expect(failed.stderr).toContain(
      `commit ${broken.slice(0, 12)} failed on ${daemon.url}: the daemon's reconcile of`,
    );
    expect(failed.stderr).toContain('ended invalid');
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toContain(`commit ${unread.slice(0, 12)} is not live on ${daemon.url} after 2s`);
    expect(timedOut.stderr).toContain(`the daemon has not reconciled ${unread.slice(0, 12)} yet`);
    expect(timedOut.stderr).toMatch(/manifests\/rules\.yaml:5:5: /);
  });

  it('refuses a commit that is not hex, and a URL that is not http', async () => {
    const bad = await runEdgesyncInProcess([
      'status',
      '--daemon-url',
      daemon.url,
      '--wait-commit',
      'HEAD; rm -rf /',
    ]);
    const scheme = await runEdgesyncInProcess(['status', '--daemon-url', 'file:///etc/passwd']);
    const missing = await runEdgesyncInProcess(['status']);

    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      '--wait-commit: expected a commit ID, 7 to 64 hex digits (found "HEAD; rm -rf /")',
    );
    expect(scheme.code).toBe(1);
    expect(scheme.stderr).toContain('--daemon-url: expected http:// or https:// (found "file:")');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      "--daemon-url: required: the daemon's address (or, to wait without reaching the daemon, --commit-status PROVIDER with --wait-commit SHA)",
    );
  });
});

/** A server standing where a daemon should be, answering what a test gives it. */
describe('edgesync status reads /status as untrusted input', () => {
  let server: Server;
  let url: string;
  let answer: (response: import('node:http').ServerResponse) => void = () => undefined;

  beforeAll(async () => {
    server = createServer((_request, response) => answer(response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://user:hunter2@127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    ['not JSON', 200, '<html>login</html>', "not JSON, so not an edgesync daemon's /status"],
    ['another status code', 503, '{}', 'HTTP 503 (expected 200'],
    [
      'a wrong shape',
      200,
      '{"mode":"enforce","owner":7}',
      "not an edgesync daemon's status: owner: expected a string (found 7)",
    ],
    ['an unknown mode', 200, '{"mode":"apply"}', 'mode: expected "enforce" or "observe" (found "apply")'],
  ])('%s gives a clear error naming the URL, without its password', async (_name, code, body, message) => {
    answer = (response) => response.writeHead(code, { 'content-type': 'application/json' }).end(body);

    const run = await runEdgesyncInProcess(['status', '--daemon-url', url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain(url.replace('user:hunter2@', ''));
    expect(run.stderr).not.toContain('hunter2');
  });

  it('stops reading a body over 8 MiB, declared or streamed', async () => {
    answer = (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = `"${'x'.repeat(1024 * 1024)}",`;
      let sent = 0;
      const more = (): void => {
        while (sent < 64 && response.write(chunk)) sent += 1;
        if (sent < 64) response.once('drain', more);
        else response.end();
      };
      response.write('[');
      more();
    };

    const run = await runEdgesyncInProcess(['status', '--daemon-url', url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the answer is over 8 MiB');
  });

  it('says when nothing answers', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const run = await runEdgesyncInProcess(['status', '--daemon-url', `http://127.0.0.1:${port}`]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `http://127.0.0.1:${port}/status: could not read the daemon's status: ECONNREFUSED`,
    );
  });

  it('escapes terminal sequences the body holds', async () => {
    const status = {
      mode: 'enforce',
      owner: 'evil\u001b]0;pwned\u0007',
      paths: ['m'],
      ready: false,
      not_ready_reason: 'x\u001b[2J',
      manifests_valid: true,
      manifest_errors: [],
      last_reconcile: null,
      last_success_at: null,
      last_error: null,
      last_plan: null,
      last_apply: null,
    };
    answer = (response) => response.writeHead(200).end(JSON.stringify(status));

    const run = await runEdgesyncInProcess(['status', '--daemon-url', url]);
    const givenStatus = await runEdgesyncInProcess(['status', '--daemon-url', `${url}/status/`]);

    expect(run.code, run.stderr).toBe(0);
    expect(givenStatus.stdout).toBe(run.stdout);
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stdout).toContain('evil\\x1b]0;pwned\\x07');
  });
});
