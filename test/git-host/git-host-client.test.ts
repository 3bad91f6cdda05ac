import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTokenFile } from '../../src/credential-file.js';
import { COMMIT_STATUS_PROVIDERS, PROVIDERS } from '../../src/git-host/commit-status-providers.js';
import { GitHostClient, type HostOutcome } from '../../src/git-host/git-host-client.js';
import { FakeGitHost } from '../support/fake-git-host.js';
import { startTricklingPeer, type TricklingPeer } from '../support/trickling-peer.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const CONTEXT = 'edgesync/platform-prod';

function value<T>(outcome: HostOutcome<T>): T {
  if (outcome.type !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(outcome)}`);
  return outcome.value;
}

describe.each(COMMIT_STATUS_PROVIDERS)('the Git host client against a stand-in for %s', (provider) => {
  let host: FakeGitHost;
  let dir: string;
  let tokenFile: string;
  const client = (overrides: Partial<ConstructorParameters<typeof GitHostClient>[0]> = {}) =>
    new GitHostClient({
      provider: PROVIDERS[provider],
      apiUrl: new URL(host.apiUrl),
      repo: host.repository,
      token: async () => (await readTokenFile(tokenFile, '--commit-status-token-file')).token,
      timeoutMs: 5000,
      ...overrides,
    });

  beforeEach(async () => {
    host = new FakeGitHost(provider);
    await host.start();
    dir = await mkdtemp(join(tmpdir(), 'edgesync-host-'));
    tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${host.token}\n`, { mode: 0o600 });
    host.parents.set(C, [B]);
    host.parents.set(B, [A]);
  });
  afterEach(async () => {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("posts each state in the provider's words and reads the newest back in edgesync's", async () => {
    const github = client();

    for (const state of ['pending', 'failure', 'error', 'success'] as const) {
      expect(
        value(
          await github.postStatus(
            A,
            CONTEXT,
            { state, description: `now ${state}` },
            'https://status.example.com/',
          ),
        ),
      ).toBe(true);
    }
    host.put(A, {
      context: 'ci/other',
      state: provider === 'gitlab' ? 'failed' : 'failure',
      description: 'another tool',
      targetUrl: null,
    });
    const read = value(await github.readStatus(A, CONTEXT));

    expect(host.history(A, CONTEXT)).toEqual(
      provider === 'gitlab'
        ? ['running', 'failed', 'canceled', 'success']
        : ['pending', 'failure', 'error', 'success'],
    );
    expect(host.latest(A, CONTEXT)?.targetUrl).toBe('https://status.example.com/');
    expect(read).toMatchObject({
      state: 'success',
      description: 'now success',
      targetUrl: 'https://status.example.com/',
    });
    expect(value(await github.readStatus(B, CONTEXT))).toBeNull();
  });

  it('takes posting the state a commit already has as done (GitLab answers 400 to it)', async () => {
    const github = client();

    const first = await github.postStatus(A, CONTEXT, { state: 'pending', description: 'reconciling' }, null);
    const again = await github.postStatus(A, CONTEXT, { state: 'pending', description: 'reconciling' }, null);

    expect(first.type).toBe('ok');
    expect(again.type).toBe('ok');
    expect(host.history(A, CONTEXT)).toEqual(provider === 'gitlab' ? ['running'] : ['pending', 'pending']);
  });

  it('tells whether a newer commit contains an older one, from the host', async () => {
    const github = client();

    expect(value(await github.contains(A, C))).toBe(true);
    expect(value(await github.contains(A, A))).toBe(true);
    expect(value(await github.contains(C, A))).not.toBe(true);
  });

  it('re-reads the token before each request: a rotated token is used at once, a rejected one is refused naming the file, never the token', async () => {
    const github = client();
    await writeFile(tokenFile, 'rotated-token-SECRET-1234');

    const rejected = await github.postStatus(A, CONTEXT, { state: 'pending', description: 'x' }, null);
    await writeFile(tokenFile, host.token);
    const accepted = await github.postStatus(A, CONTEXT, { state: 'pending', description: 'x' }, null);
    await rm(tokenFile);
    const unreadable = await github.postStatus(A, CONTEXT, { state: 'success', description: 'x' }, null);

    expect(rejected).toMatchObject({ type: 'refused', status: 401 });
    expect(rejected.type === 'refused' && rejected.message).toContain('answered 401');
    expect(rejected.type === 'refused' && rejected.message).toContain('--commit-status-token-file');
    expect(accepted.type).toBe('ok');
    expect(unreadable).toMatchObject({ type: 'refused', status: null });
    expect(unreadable.type === 'refused' && unreadable.message).toContain(
      `--commit-status-token-file: cannot read ${tokenFile} (ENOENT)`,
    );
    expect(JSON.stringify([rejected, unreadable])).not.toMatch(/SECRET|NEVER-PRINTED/);
  });

  it("honours Retry-After and a spent rate limit's reset, and scrubs a token the host echoes back", async () => {
    const now = 1_800_000_000_000;
    const github = client({ now: () => now });
    host.scripted.push({ status: 429, headers: { 'retry-after': '30' }, body: { message: 'slow down' } });
    host.scripted.push({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 600) },
      body: { message: 'API rate limit exceeded' },
    });
    host.scripted.push({
      status: 200,
      headers: { 'ratelimit-remaining': '0', 'ratelimit-reset': String(now / 1000 + 90) },
      body: [],
    });
    host.scripted.push({ status: 500, body: { message: `internal error with ${host.token}` } });

    const limited = await github.postStatus(A, CONTEXT, { state: 'pending', description: 'x' }, null);
    const spent = await github.readStatus(A, CONTEXT);
    const lastOne = await github.readStatus(A, CONTEXT);
    const failing = await github.postStatus(A, CONTEXT, { state: 'pending', description: 'x' }, null);

    expect(limited).toMatchObject({ type: 'retry', waitMs: 30_000 });
    expect(spent).toMatchObject({ type: 'retry', waitMs: 600_000 });
    expect(lastOne).toMatchObject({ type: 'ok', value: null, waitMs: 90_000 });
    expect(failing.type).toBe('retry');
    expect(failing.type === 'retry' && failing.message).toContain('internal error with (token)');
    expect(JSON.stringify(failing)).not.toContain(host.token);
  });
});

describe('the Git host client against a host that trickles its answer', () => {
  let peer: TricklingPeer;
  afterEach(async () => {
    await peer.close();
  });
  const client = () =>
    new GitHostClient({
      provider: PROVIDERS.github,
      apiUrl: new URL(peer.url),
      repo: 'acme/infra',
      token: async () => 'trickle-token-0123456789',
      timeoutMs: 1000,
    });

  it('ends the read at its deadline, body included, and asks to be tried again', async () => {
    peer = await startTricklingPeer();

    const outcome = await client().readStatus(A, CONTEXT);

    expect(outcome.type).toBe('retry');
    expect(outcome.type === 'retry' && outcome.message).toMatch(
      /GitHub \(127\.0\.0\.1:\d+\): GET \/repos\/acme\/infra\/commits\/a{40}\/status: no complete answer \(the body was still arriving after 1 s/,
    );
    await peer.cutOff;
  });

  it('ends the read at once on the caller’s signal', async () => {
    peer = await startTricklingPeer();
    const stop = new AbortController();

    const reading = client().postStatus(
      A,
      CONTEXT,
      { state: 'pending', description: 'x' },
      null,
      stop.signal,
    );
    await peer.answering;
    stop.abort();

    expect(await reading).toEqual({ type: 'aborted' });
    await peer.cutOff;
  });
});
