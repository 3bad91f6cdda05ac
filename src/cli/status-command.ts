import { setTimeout as sleep } from 'node:timers/promises';
import { exposureWarning } from '../credential-file.js';
import { OptionError } from '../errors.js';
import { renameKeysDeep, snakeCaseKey } from '../json-case.js';
import { visibleText } from '../visible-text.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { commitStatusTarget } from './commit-status-target.js';
import { parseDuration } from './duration-option.js';
import { parseOwner } from './plan-options.js';
import { type CommitVerdict, judgeCommit } from './status-commit-verdict.js';
import type { StatusFlags } from './status-flags.js';
import { reachesCommit } from './status-git-ancestry.js';
import { readDaemonStatus, type StatusView, shownUrl, statusUrl } from './status-read.js';
import { statusScreen } from './status-screen.js';
import { statusTokenHeader } from './status-token-header.js';
import { waitThroughHost } from './status-wait-host.js';

/** How often `--wait-commit` reads `/status` again, milliseconds: a merge job's wait, not a busy loop. */
export const WAIT_POLL_MS = 1000;

const COMMIT = /^[0-9a-f]{7,64}$/;

export async function runStatus(flags: StatusFlags, ctx: CommandContext): Promise<CommandOutcome> {
  if (flags.commitStatus !== undefined) return waitThroughGitHost(flags, ctx);
  if (flags.daemonUrl === undefined) {
    throw new OptionError(
      '--daemon-url',
      "required: the daemon's address (or, to wait without reaching the daemon, --commit-status PROVIDER with --wait-commit SHA)",
    );
  }
  const url = statusUrl(flags.daemonUrl);
  const daemon = shownUrl(url).replace(/\/status$/, '');
  const readTimeoutMs = parseDuration('--read-timeout', flags.readTimeout);
  const auth = await statusTokenHeader(flags.statusTokenFile, ctx);
  if (flags.waitCommit === undefined) {
    const status = await readDaemonStatus(url, ctx.shutdown, readTimeoutMs, auth);
    if (flags.format === 'json') ctx.stdout.write(`${JSON.stringify(statusJson(daemon, status), null, 2)}\n`);
    else ctx.stdout.write(`${statusScreen(status, daemon, Date.now()).join('\n')}\n`);
    return 'ok';
  }
  const commit = parseCommit(flags.waitCommit);
  const timeoutMs = parseDuration('--wait-timeout', flags.waitTimeout);
  return waitForCommit(
    commit,
    { url, daemon, timeoutMs, readTimeoutMs, waitLabel: flags.waitTimeout, format: flags.format, auth },
    ctx,
  );
}

function parseCommit(given: string): string {
  const commit = given.trim().toLowerCase();
  if (!COMMIT.test(commit)) {
    throw new OptionError('--wait-commit', `expected a commit ID, 7 to 64 hex digits (found "${given}")`);
  }
  return commit;
}

/** `--commit-status PROVIDER --wait-commit SHA`: the wait through the Git host, which needs no route to the daemon. */
async function waitThroughGitHost(flags: StatusFlags, ctx: CommandContext): Promise<CommandOutcome> {
  if (flags.daemonUrl !== undefined) {
    throw new OptionError('--commit-status', 'waits through the Git host: give it or --daemon-url, not both');
  }
  if (flags.waitCommit === undefined) {
    throw new OptionError('--commit-status', 'reads a commit status: give the commit with --wait-commit SHA');
  }
  const commit = parseCommit(flags.waitCommit);
  const target = await commitStatusTarget(
    { ...flags, owner: parseOwner(flags.owner) },
    { checkout: ctx.cwd, cwd: ctx.cwd },
  );
  if (target === null) throw new OptionError('--commit-status', 'expected github, gitlab or gitea');
  if (target.exposure !== undefined) {
    ctx.stderr.write(
      `warning: ${exposureWarning(target.tokenFile, '--commit-status-token-file', target.exposure)}\n`,
    );
  }
  for (const note of target.notes) ctx.stderr.write(`${visibleText(note)}\n`);
  return waitThroughHost(
    commit,
    {
      target,
      timeoutMs: parseDuration('--wait-timeout', flags.waitTimeout),
      readTimeoutMs: parseDuration('--read-timeout', flags.readTimeout),
      waitLabel: flags.waitTimeout,
      format: flags.format,
    },
    ctx,
  );
}

interface WaitOptions {
  readonly url: URL;
  readonly daemon: string;
  readonly timeoutMs: number;
  /** The deadline of one read, milliseconds; a read never outlasts the wait. */
  readonly readTimeoutMs: number;
  /** --wait-timeout as given (`10m`), for the message. */
  readonly waitLabel: string;
  readonly format: StatusFlags['format'];
  /** The status token's `Authorization`, when given. */
  readonly auth: Readonly<Record<string, string>>;
}

/**
 * Reads `/status` every second until the commit is live (exit 0), the daemon
 * reports it failed (exit 1 at once, with the daemon's own errors), the
 * timeout passes or a signal comes (exit 1 with what it last saw). A daemon
 * that does not answer for a moment (restarting, a rollout) is waited for
 * too; a body that is not a daemon's status ends the wait at once. The
 * timeout bounds the whole wait: each read's deadline is what is left of it
 * when that is less than `--read-timeout`, so a daemon that trickles its
 * answer cannot stretch the wait.
 */
async function waitForCommit(
  commit: string,
  options: WaitOptions,
  ctx: CommandContext,
): Promise<CommandOutcome> {
  const deadline = performance.now() + options.timeoutMs;
  let last: { status: StatusView | null; verdict: CommitVerdict | null; unreachable: string | null } = {
    status: null,
    verdict: null,
    unreachable: null,
  };
  for (;;) {
    const leftMs = deadline - performance.now();
    try {
      const status = await readDaemonStatus(
        options.url,
        ctx.shutdown,
        Math.max(1, Math.min(options.readTimeoutMs, leftMs)),
        options.auth,
      );
      const relations = {
        liveReaches: await reachesCommit(commit, status.git?.lastAppliedCommit ?? null, ctx.cwd),
        reconciledReaches: await reachesCommit(commit, status.git?.checkoutCommit ?? null, ctx.cwd),
      };
      const verdict = judgeCommit(status, commit, relations);
      last = { status, verdict, unreachable: null };
      if (verdict.state !== 'pending') break;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (ctx.shutdown.aborted) break;
      if (code !== 'network_error') throw error;
      last = { ...last, unreachable: error instanceof Error ? error.message : String(error) };
    }
    if (performance.now() + WAIT_POLL_MS > deadline || ctx.shutdown.aborted) break;
    await sleep(WAIT_POLL_MS, undefined, { signal: ctx.shutdown }).catch(() => undefined);
  }
  return report(commit, last, options, ctx, ctx.shutdown.aborted);
}

function report(
  commit: string,
  last: { status: StatusView | null; verdict: CommitVerdict | null; unreachable: string | null },
  options: WaitOptions,
  ctx: CommandContext,
  interrupted: boolean,
): CommandOutcome {
  const { verdict, status } = last;
  const outcome: 'live' | 'failed' | 'suspended' | 'timeout' | 'interrupted' =
    verdict?.state === 'live'
      ? 'live'
      : verdict?.state === 'failed' || verdict?.state === 'suspended'
        ? verdict.state
        : interrupted
          ? 'interrupted'
          : 'timeout';
  const reason =
    verdict === null || verdict.state === 'live'
      ? (last.unreachable ?? '')
      : last.unreachable === null
        ? verdict.reason
        : `${verdict.reason}; then: ${last.unreachable}`;
  const details = verdict === null || verdict.state === 'live' ? [] : verdict.details;
  const headline =
    outcome === 'live'
      ? `commit ${commit.slice(0, 12)} is live on ${options.daemon} (live commit ${verdict?.state === 'live' ? verdict.liveCommit : ''})`
      : outcome === 'failed'
        ? `commit ${commit.slice(0, 12)} failed on ${options.daemon}: ${reason}`
        : outcome === 'suspended'
          ? `commit ${commit.slice(0, 12)} is not live: the daemon is suspended (${options.daemon}: ${reason})`
          : outcome === 'interrupted'
            ? `commit ${commit.slice(0, 12)} is not live on ${options.daemon}: interrupted before --wait-timeout${reason === '' ? '' : ` (${reason})`}`
            : `commit ${commit.slice(0, 12)} is not live on ${options.daemon} after ${options.waitLabel}: ${reason || 'no answer'}`;
  if (options.format === 'json') {
    ctx.stdout.write(
      `${JSON.stringify(
        {
          commit,
          result: outcome,
          live_commit: status?.git?.lastAppliedCommit ?? null,
          reason: reason === '' ? null : reason,
          details,
          status: status === null ? null : statusJson(options.daemon, status),
        },
        null,
        2,
      )}\n`,
    );
  } else if (status !== null) {
    ctx.stdout.write(`${statusScreen(status, options.daemon, Date.now()).join('\n')}\n`);
  }
  const out = outcome === 'live' ? ctx.stdout : ctx.stderr;
  if (options.format === 'text' || outcome !== 'live') {
    out.write(`${visibleText(headline)}\n`);
    for (const line of details) ctx.stderr.write(`  ${visibleText(line)}\n`);
  }
  return outcome === 'live'
    ? 'ok'
    : outcome === 'failed' || outcome === 'suspended'
      ? 'commit_failed'
      : 'commit_not_live';
}

/** What `--format json` prints: the checked status, snake_case like all of edgesync's JSON. */
function statusJson(daemon: string, status: StatusView): unknown {
  return { daemon_url: daemon, ...(renameKeysDeep(status, snakeCaseKey) as object) };
}
