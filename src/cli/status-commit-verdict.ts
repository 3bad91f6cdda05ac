import type { StatusView } from './status-read.js';

/**
 * Whether a commit is live on a daemon, judged from one `/status`:
 * - `live`: the daemon's live commit (`git.last_applied_commit`) is the
 *   commit or a descendant of it, and the daemon's last reconcile of that
 *   live commit left the account as the manifests say with no entry skipped;
 * - `failed`: the daemon has reconciled the commit (or a descendant) and
 *   reports an outcome that only a new commit or a person mends: invalid
 *   manifests, a refused plan, skipped entries;
 * - `suspended`: the commit is not live and the daemon says it is suspended:
 *   nothing is applied until someone runs `edgesync resume`;
 * - `pending`: anything else (not read yet, a reconcile still settling, an
 *   error the daemon retries); `reason` says which.
 */
export type CommitVerdict =
  | { readonly state: 'live'; readonly liveCommit: string }
  | { readonly state: 'failed'; readonly reason: string; readonly details: readonly string[] }
  | { readonly state: 'suspended'; readonly reason: string; readonly details: readonly string[] }
  | { readonly state: 'pending'; readonly reason: string; readonly details: readonly string[] };

/** How a commit the daemon reports relates to the awaited one: the same, after it, or neither (or not known here). */
export interface CommitRelations {
  /** The live commit is the awaited one or a descendant. */
  readonly liveReaches: boolean;
  /** The commit the last reconcile read is the awaited one or a descendant. */
  readonly reconciledReaches: boolean;
}

/** Results after which the account is as the manifests say. */
const IN_SYNC = new Set(['in-sync', 'applied']);
/** Results that stay until the manifests or the account are changed by someone: waiting longer does not help. */
const STUCK = new Set(['invalid', 'refused', 'partial']);

export function judgeCommit(status: StatusView, commit: string, relations: CommitRelations): CommitVerdict {
  const short = commit.slice(0, 12);
  if (status.git === null || (status.git.checkoutCommit === null && status.git.lastAppliedCommit === null)) {
    return {
      state: 'failed',
      reason: `the daemon reports no git commit: its manifests (${status.paths.join(', ')}) are not in a git checkout`,
      details: [],
    };
  }
  const { lastAppliedCommit, checkoutCommit } = status.git;
  const result = status.lastReconcile?.result;
  const details = problemLines(status);
  if (relations.liveReaches && lastAppliedCommit !== null) {
    // A later reconcile of the live commit itself (a resync) must still be in sync; one of a newer commit is that commit's affair.
    const reconciledLive = checkoutCommit === lastAppliedCommit;
    if (
      !reconciledLive ||
      (result !== undefined && IN_SYNC.has(result) && status.skippedEntries.length === 0)
    ) {
      return { state: 'live', liveCommit: lastAppliedCommit };
    }
  }
  if (status.suspended === true) {
    const since =
      status.suspension === null ? '' : ` since ${status.suspension.since} by ${status.suspension.by}`;
    return {
      state: 'suspended',
      reason: `the daemon is suspended${since}: nothing is applied until edgesync resume`,
      details,
    };
  }
  if (!relations.reconciledReaches) {
    return {
      state: 'pending',
      reason: `the daemon has not reconciled ${short} yet (its last reconcile read ${checkoutCommit?.slice(0, 12) ?? 'no commit'}; live: ${lastAppliedCommit?.slice(0, 12) ?? 'none'})`,
      details,
    };
  }
  const of = `the daemon's reconcile of ${checkoutCommit?.slice(0, 12)}${checkoutCommit?.startsWith(commit) ? '' : ` (after ${short})`}`;
  if (result !== undefined && STUCK.has(result)) {
    return { state: 'failed', reason: `${of} ended ${result}`, details };
  }
  if (status.mode === 'observe' && (result === 'drift' || result === 'pending')) {
    return {
      state: 'pending',
      reason: `${of} found ${result === 'drift' ? 'drift' : 'changes pending'}, and the daemon observes only (--mode observe): something else must apply them`,
      details,
    };
  }
  return { state: 'pending', reason: `${of} ended ${result ?? 'not yet'}`, details };
}

/** The daemon's own account of what is wrong: manifest errors, the refusal, skipped entries, apply failures, its last error. */
export function problemLines(status: StatusView): string[] {
  const lines: string[] = [];
  for (const problem of status.manifestErrors) {
    const place =
      problem.line === null ? problem.file : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
    lines.push(`${place}: ${problem.path === '' ? '' : `${problem.path}: `}${problem.message}`);
  }
  if (status.lastPlan?.refusal) lines.push(`refused: ${status.lastPlan.refusal}`);
  for (const entry of status.skippedEntries) {
    const place = entry.file === null ? '' : `${entry.file}:${entry.line ?? 1}:${entry.column ?? 1}: `;
    lines.push(`${place}skipped ${entry.kind}.${entry.name} (${entry.reason}): ${entry.message}`);
  }
  for (const failure of status.lastApplyFailures) lines.push(`failed ${failure.action}: ${failure.message}`);
  if (status.lastError !== null && !IN_SYNC.has(status.lastReconcile?.result ?? '')) {
    lines.push(`last error (${status.lastError.code}, ${status.lastError.at}): ${status.lastError.message}`);
  }
  return lines;
}
