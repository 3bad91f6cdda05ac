import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../src/git-host/commit-status-providers.js';
import { GitHostClient } from '../../src/git-host/git-host-client.js';
import { CommitStatusBook } from '../../src/watch/commit-status/commit-status-book.js';
import {
  CommitStatusDelivery,
  type PostResult,
} from '../../src/watch/commit-status/commit-status-delivery.js';
import { FakeGitHost } from '../support/fake-git-host.js';
import { FakeClock } from './fake-clock.js';

const [A, B, C] = ['a', 'b', 'c'].map((digit) => digit.repeat(40)) as [string, string, string];
const CONTEXT = 'edgesync/platform-prod';

/** Resolves once `check` holds, letting the delivery's HTTP round trips finish between looks. */
async function until(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 500 && !check(); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(check()).toBe(true);
}

describe('the commit-status queue (in process, a fake clock, a stand-in for GitHub)', () => {
  let host: FakeGitHost;
  let clock: FakeClock;
  let results: { result: PostResult; commit: string }[];
  let delivery: CommitStatusDelivery;

  beforeEach(async () => {
    host = new FakeGitHost('github');
    await host.start();
    clock = new FakeClock();
    results = [];
    delivery = new CommitStatusDelivery({
      client: new GitHostClient({
        provider: PROVIDERS.github,
        apiUrl: new URL(host.apiUrl),
        repo: host.repository,
        token: async () => host.token,
        timeoutMs: 5000,
        now: () => clock.now(),
      }),
      context: CONTEXT,
      targetUrl: null,
      clock,
      random: () => 0.5,
      logger: pino({ level: 'silent' }),
      onResult: (result, commit) => results.push({ result, commit }),
      queueLimit: 2,
    });
  });
  afterEach(async () => {
    await delivery.close(0);
    await host.close();
  });

  it('keeps only the newest state of a commit while the host is down, and never lets a pending one replace a final one', async () => {
    host.scripted.push({ status: 503, body: { message: 'down' } });
    delivery.want(A, { type: 'state', status: { state: 'pending', description: 'reconciling' } });
    await until(() => results.length === 1);
    delivery.want(A, { type: 'state', status: { state: 'pending', description: 'held: 1 delete' } });
    delivery.want(A, { type: 'state', status: { state: 'success', description: 'live and in sync' } });
    delivery.want(A, { type: 'state', status: { state: 'pending', description: 'reconciling' } });

    await clock.advance(1000);
    await until(() => delivery.pending === 0);

    expect(results.map((entry) => entry.result)).toEqual(['retried', 'posted']);
    expect(host.history(A, CONTEXT)).toEqual(['success']);
  });

  it('waits as long as the host asks (Retry-After) before it posts again', async () => {
    host.scripted.push({ status: 429, headers: { 'retry-after': '120' }, body: { message: 'slow down' } });
    delivery.want(A, { type: 'state', status: { state: 'failure', description: 'x.yaml:1:1: bad' } });
    await until(() => results.length === 1);

    expect(clock.pendingDelays()).toEqual([120_000]);
    await clock.advance(119_000);
    expect(host.history(A, CONTEXT)).toEqual([]);
    await clock.advance(1000);
    await until(() => delivery.pending === 0);
    expect(host.history(A, CONTEXT)).toEqual(['failure']);
  });

  it('past its limit drops the oldest pending state, never a final one', async () => {
    host.scripted.push({ status: 503, body: { message: 'down' } });
    delivery.want(A, {
      type: 'state',
      status: { state: 'error', description: 'superseded by bbbbbbbbbbbb' },
    });
    await until(() => results.length === 1);
    delivery.want(B, { type: 'state', status: { state: 'pending', description: 'reconciling' } });
    delivery.want(C, { type: 'state', status: { state: 'pending', description: 'reconciling' } });
    delivery.want('d'.repeat(40), {
      type: 'state',
      status: { state: 'pending', description: 'reconciling' },
    });

    expect(results.map((entry) => [entry.result, entry.commit[0]])).toEqual([
      ['retried', 'a'],
      ['dropped', 'b'],
    ]);
    expect(delivery.pending).toBe(3);
  });

  it('a commit replaced before it went live is live through the newer one when the host says it contains it, else superseded', async () => {
    host.parents.set(B, [A]);
    delivery.want(A, { type: 'through', newer: B });
    delivery.want(C, { type: 'through', newer: B });
    await until(() => delivery.pending === 0);

    expect(host.latest(A, CONTEXT)?.description).toBe('live through bbbbbbbbbbbb');
    expect(host.latest(A, CONTEXT)?.state).toBe('success');
    expect(host.latest(C, CONTEXT)?.state).toBe('error');
    expect(host.latest(C, CONTEXT)?.description).toMatch(/^superseded by bbbbbbbbbbbb /);
  });
});

describe('which state each commit gets (the book)', () => {
  it('pending once per commit, the verdict once, a success never taken back, replaced commits settled by the newer one', () => {
    const book = new CommitStatusBook();
    const reconciling = { state: 'pending', description: 'reconciling' } as const;

    const first = book.reconciling(A);
    const again = book.reconciling(A);
    const live = book.recorded(A, { state: 'success', description: 'live and in sync' });
    const resync = book.reconciling(A);
    const laterProblem = book.recorded(A, { state: 'failure', description: 'skipped' });
    book.reconciling(B);
    book.reconciling(C);
    const cFails = book.recorded(C, { state: 'failure', description: 'x.yaml:1:1: bad' });

    expect(first).toEqual([{ commit: A, wanted: { type: 'state', status: reconciling } }]);
    expect(again).toEqual([]);
    expect(live).toEqual([
      { commit: A, wanted: { type: 'state', status: { state: 'success', description: 'live and in sync' } } },
    ]);
    expect(resync).toEqual([]);
    expect(laterProblem).toEqual([]);
    expect(
      cFails.map((want) => [
        want.commit[0],
        want.wanted.type === 'state' ? want.wanted.status.state : 'through',
      ]),
    ).toEqual([
      ['c', 'failure'],
      ['b', 'error'],
    ]);
  });
});
