import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandContext, CommandOutcome } from '../../src/cli/command-context.js';
import { waitThroughHost } from '../../src/cli/status-wait-host.js';
import { COMMIT_STATUS_PROVIDERS, PROVIDERS } from '../../src/git-host/commit-status-providers.js';
import { SUSPENDED_DESCRIPTION, supersededStatus } from '../../src/git-host/commit-status-text.js';
import { FakeGitHost } from '../support/fake-git-host.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const X = 'e'.repeat(40);
const CONTEXT = 'edgesync/platform-prod';

class Captured extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

interface Waited {
  readonly outcome: CommandOutcome;
  readonly json: Record<string, unknown>;
  readonly stderr: string;
  /** Each pause the wait took, milliseconds. */
  readonly pauses: number[];
}

describe.each(COMMIT_STATUS_PROVIDERS)(
  'status --wait-commit --commit-status %s, in process with a recorded clock',
  (provider) => {
    let host: FakeGitHost;
    let dir: string;
    /** The host's own word for each state. */
    const word = (state: 'pending' | 'success' | 'failure' | 'error'): string =>
      provider === 'gitlab'
        ? { pending: 'running', success: 'success', failure: 'failed', error: 'canceled' }[state]
        : state;
    const post = (commit: string, state: 'pending' | 'success' | 'failure' | 'error', description: string) =>
      host.put(commit, {
        context: CONTEXT,
        state: word(state),
        description,
        targetUrl: 'https://status.example.com/',
      });

    /** Runs the wait; `onPause` changes the host between reads, as the daemon would. */
    async function wait(
      timeoutMs: number,
      onPause: (pause: number) => void = () => undefined,
    ): Promise<Waited> {
      const stdout = new Captured();
      const stderr = new Captured();
      const stdin = new PassThrough();
      stdin.end();
      let clock = 0;
      const pauses: number[] = [];
      const ctx = {
        stdout,
        stderr,
        stdin,
        env: {},
        cwd: dir,
        setOutcome: () => undefined,
        shutdown: new AbortController().signal,
        onExit: () => undefined,
      } as unknown as CommandContext;
      const outcome = await waitThroughHost(
        A,
        {
          target: {
            provider: PROVIDERS[provider],
            apiUrl: new URL(host.apiUrl),
            repo: host.repository,
            tokenFile: join(dir, 'token'),
            context: CONTEXT,
            exposure: undefined,
            notes: [],
          },
          timeoutMs,
          readTimeoutMs: 5000,
          waitLabel: `${timeoutMs / 1000}s`,
          format: 'json',
          now: () => clock,
          sleep: async (ms) => {
            pauses.push(ms);
            clock += ms;
            onPause(pauses.length);
          },
        },
        ctx,
      );
      return {
        outcome,
        json: JSON.parse(stdout.text) as Record<string, unknown>,
        stderr: stderr.text,
        pauses,
      };
    }

    beforeEach(async () => {
      host = new FakeGitHost(provider);
      await host.start();
      dir = await mkdtemp(join(tmpdir(), 'edgesync-wait-host-'));
      await writeFile(join(dir, 'token'), host.token, { mode: 0o600 });
      host.parents.set(B, [A]);
    });
    afterEach(async () => {
      await host.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('waits through pending and a status not posted yet, asking every 10 s, and exits 0 on success', async () => {
      const waited = await wait(60_000, (pause) => {
        if (pause === 1) post(A, 'pending', 'reconciling');
        if (pause === 3) post(A, 'success', 'live and in sync');
      });

      expect(waited.outcome).toBe('ok');
      expect(waited.json).toMatchObject({ result: 'live', live_commit: A, reason: 'live and in sync' });
      expect(waited.pauses).toEqual([10_000, 10_000, 10_000]);
      expect(host.requests.filter((request) => request.method === 'GET')).toHaveLength(4);
    });

    it('exits 1 at once on failure, with the description naming file:line', async () => {
      post(A, 'failure', 'manifests/rules.yaml:7:5: ip_policy_rules.office.cidr: not a CIDR');

      const waited = await wait(60_000);

      expect(waited.outcome).toBe('commit_failed');
      expect(waited.json).toMatchObject({
        result: 'failed',
        reason: 'manifests/rules.yaml:7:5: ip_policy_rules.office.cidr: not a CIDR',
      });
      expect(waited.pauses).toEqual([]);
    });

    it('exits 1 at once when the daemon is suspended, and says so', async () => {
      post(A, 'pending', SUSPENDED_DESCRIPTION);

      const waited = await wait(60_000);

      expect(waited.outcome).toBe('commit_failed');
      expect(waited.json.result).toBe('suspended');
      expect(waited.stderr).toContain('the daemon is suspended');
    });

    it('follows a superseding commit that contains it to that commit’s success; one that does not contain it fails', async () => {
      post(A, 'error', supersededStatus(B).description);
      post(B, 'success', 'live and in sync');

      const followed = await wait(60_000);
      host.statuses.clear();
      post(A, 'error', supersededStatus(X).description);
      const unrelated = await wait(60_000);

      expect(followed.outcome).toBe('ok');
      expect(followed.json).toMatchObject({ result: 'live', live_commit: B.slice(0, 12) });
      expect(unrelated.outcome).toBe('commit_failed');
      expect(String(unrelated.json.reason)).toMatch(/^superseded by eeeeeeeeeeee/);
    });

    it('asks again no sooner than Retry-After, gives up at --wait-timeout saying what the host asked, and never prints the token', async () => {
      host.scripted.push({ status: 429, headers: { 'retry-after': '45' }, body: { message: 'slow down' } });
      host.scripted.push({
        status: 429,
        headers: { 'retry-after': '600' },
        body: { message: `slow down ${host.token}` },
      });

      const waited = await wait(120_000);

      expect(waited.pauses).toEqual([45_000]);
      expect(waited.outcome).toBe('commit_not_live');
      expect(waited.json.result).toBe('timeout');
      expect(String(waited.json.reason)).toContain('asked to wait 600 s');
      expect(JSON.stringify(waited)).not.toContain(host.token);
    });

    it('exits 1 at once when the host refuses the token, naming the file to check', async () => {
      await writeFile(join(dir, 'token'), 'not-the-token-SECRET');

      const waited = await wait(60_000);

      expect(waited.outcome).toBe('git_host_refused');
      expect(String(waited.json.reason)).toMatch(/answered 401 .*--commit-status-token-file/);
      expect(JSON.stringify(waited)).not.toContain('SECRET');
    });
  },
);
