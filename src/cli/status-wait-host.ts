import { setTimeout as sleepFor } from 'node:timers/promises';
import { readTokenFile } from '../credential-file.js';
import type { FoundStatus } from '../git-host/commit-status-providers.js';
import { saysSuspended, shortCommit, supersedingCommit } from '../git-host/commit-status-text.js';
import { GitHostClient } from '../git-host/git-host-client.js';
import { visibleText } from '../visible-text.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import type { CommitStatusTarget } from './commit-status-target.js';
import type { StatusFormat } from './status-flags.js';

/**
 * How often the Git host is asked again, milliseconds: GitHub's REST API
 * allows a token 5,000 requests an hour (60 unauthenticated), GitLab.com
 * 2,000 a minute; one read every 10 s is 360 an hour for a merge job.
 */
export const HOST_POLL_MS = 10_000;
/** Newer commits followed through `superseded by …` before giving up: each is one more merge that replaced it. */
const MAX_FOLLOWED = 10;

export interface HostWaitOptions {
  readonly target: CommitStatusTarget;
  readonly timeoutMs: number;
  /** One read's deadline, milliseconds; never past what is left of the wait. */
  readonly readTimeoutMs: number;
  /** `--wait-timeout` as given, for the message. */
  readonly waitLabel: string;
  readonly format: StatusFormat;
  /** Waits between reads; tests give one that only records. @default timers/promises' setTimeout */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Monotonic milliseconds, for the deadline; tests pair it with `sleep`. @default performance.now */
  readonly now?: () => number;
}

type HostResult = 'live' | 'failed' | 'suspended' | 'refused' | 'timeout' | 'interrupted';

interface Seen {
  /** The commit whose status was read last: the awaited one, or a newer one that contains it. */
  readonly commit: string;
  readonly status: FoundStatus | null;
  /** Why it is not live yet, or why the wait ended. */
  readonly reason: string;
}

/**
 * `status --wait-commit SHA --commit-status PROVIDER`: waits through the Git
 * host for the status the daemon posts (`watch --commit-status`), with no
 * route to the daemon. Ends at once on success (live, itself or through a
 * newer commit), failure, a suspended daemon, or a host that refuses the
 * token or repository; waits through pending, a status not posted yet, and
 * a host that is unreachable or rate-limiting (asking again no sooner than
 * it said). A commit superseded by a newer one is followed to that commit
 * when the host says the newer one contains it.
 */
export async function waitThroughHost(
  commit: string,
  options: HostWaitOptions,
  ctx: CommandContext,
): Promise<CommandOutcome> {
  const { target } = options;
  const signal = ctx.shutdown;
  const now = options.now ?? (() => performance.now());
  const deadline = now() + options.timeoutMs;
  const sleep = options.sleep ?? ((ms, s) => sleepFor(ms, undefined, { signal: s }).catch(() => undefined));
  // Each round's reads get what is left of the wait, when that is less than --read-timeout.
  const clientFor = (timeoutMs: number): GitHostClient =>
    new GitHostClient({
      provider: target.provider,
      apiUrl: target.apiUrl,
      repo: target.repo,
      token: async () => (await readTokenFile(target.tokenFile, '--commit-status-token-file')).token,
      timeoutMs,
    });
  let seen: Seen = { commit, status: null, reason: 'not read yet' };
  const followed: string[] = [];
  const finish = (result: HostResult, reason: string): CommandOutcome =>
    report(commit, { ...seen, reason }, result, options, ctx);
  for (;;) {
    const client = clientFor(Math.max(1, Math.round(Math.min(options.readTimeoutMs, deadline - now()))));
    const read = await client.readStatus(seen.commit, target.context, signal);
    let waitMs = 0;
    if (read.type === 'aborted') return finish('interrupted', seen.reason);
    if (read.type === 'refused') return finish('refused', read.message);
    if (read.type === 'retry') {
      seen = { ...seen, reason: read.message };
      waitMs = read.waitMs;
    } else if (read.value === null) {
      seen = {
        ...seen,
        status: null,
        reason: `no ${target.context} status on ${shortCommit(seen.commit)} yet`,
      };
      waitMs = read.waitMs;
    } else {
      const status = read.value;
      seen = { ...seen, status, reason: status.description };
      waitMs = read.waitMs;
      if (status.state === 'success') return finish('live', status.description);
      if (status.state === 'failure') return finish('failed', status.description);
      if (saysSuspended(status)) return finish('suspended', status.description);
      if (status.state === 'error') {
        const newer = supersedingCommit(status.description);
        if (newer === null || followed.length >= MAX_FOLLOWED) return finish('failed', status.description);
        const contains = await client.contains(commit, newer, signal);
        if (contains.type === 'aborted') return finish('interrupted', seen.reason);
        if (contains.type === 'refused') return finish('refused', contains.message);
        if (contains.type === 'ok' && contains.value !== true) {
          return finish(
            'failed',
            contains.value === false
              ? `superseded by ${newer}, which does not contain ${shortCommit(commit)}`
              : `superseded by ${newer}; ${target.provider.title} cannot tell whether that commit contains ${shortCommit(commit)}`,
          );
        }
        if (contains.type === 'ok') {
          followed.push(newer);
          seen = { commit: newer, status: null, reason: `superseded by ${newer}, which contains it` };
          continue;
        }
        seen = { ...seen, reason: contains.message };
        waitMs = contains.waitMs;
      }
    }
    const pauseMs = Math.max(HOST_POLL_MS, waitMs);
    if (signal.aborted) return finish('interrupted', seen.reason);
    if (now() + pauseMs > deadline) {
      const asked =
        waitMs > HOST_POLL_MS
          ? ` (${target.provider.title} asked to wait ${Math.ceil(waitMs / 1000)} s)`
          : '';
      return finish('timeout', `${seen.reason}${asked}`);
    }
    await sleep(pauseMs, signal);
    if (signal.aborted) return finish('interrupted', seen.reason);
  }
}

function report(
  commit: string,
  seen: Seen,
  result: HostResult,
  options: HostWaitOptions,
  ctx: CommandContext,
): CommandOutcome {
  const { target } = options;
  const short = shortCommit(commit);
  const through = seen.commit === commit ? '' : ` through ${shortCommit(seen.commit)}`;
  const where = `${target.provider.title} status ${target.context}`;
  const headline = {
    live: `commit ${short} is live${through} (${where}: ${seen.reason})`,
    failed: `commit ${short} failed${through} (${where}): ${seen.reason}`,
    suspended: `commit ${short} is not live: the daemon is suspended (${where}: ${seen.reason})`,
    refused: `cannot read ${where} of ${short}: ${seen.reason}`,
    timeout: `commit ${short} is not live after ${options.waitLabel} (${where}): ${seen.reason}`,
    interrupted: `commit ${short} is not live: interrupted before --wait-timeout (${where}: ${seen.reason})`,
  }[result];
  if (options.format === 'json') {
    ctx.stdout.write(
      `${JSON.stringify(
        {
          commit,
          result,
          live_commit: result === 'live' ? seen.commit : null,
          reason: seen.reason,
          details: [],
          commit_status: {
            provider: target.provider.name,
            repo: target.repo,
            context: target.context,
            commit: seen.commit,
            state: seen.status?.state ?? null,
            host_state: seen.status?.hostState ?? null,
            description: seen.status?.description ?? null,
            target_url: seen.status?.targetUrl ?? null,
          },
        },
        null,
        2,
      )}\n`,
    );
  }
  if (options.format === 'text' || result !== 'live') {
    (result === 'live' ? ctx.stdout : ctx.stderr).write(`${visibleText(headline)}\n`);
    if (result !== 'live' && seen.status?.targetUrl)
      ctx.stderr.write(`  ${visibleText(seen.status.targetUrl)}\n`);
  }
  if (result === 'live') return 'ok';
  if (result === 'failed' || result === 'suspended') return 'commit_failed';
  if (result === 'refused') return 'git_host_refused';
  return 'commit_not_live';
}
