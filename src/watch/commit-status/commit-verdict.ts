import {
  type CommitStatus,
  fitDescription,
  SUSPENDED_DESCRIPTION,
} from '../../git-host/commit-status-text.js';
import type { ReconcileRecord } from '../reconcile/reconcile-record.js';

/** What a pending commit says while a run reads and applies it. */
export const RECONCILING: CommitStatus = { state: 'pending', description: 'reconciling' };

/**
 * The state of the commit a record's run read (`git.checkoutCommit`), as
 * its commit status says it; null when there is none (outside a checkout,
 * before the first run):
 * - failure (the manifests are invalid, the plan is refused, an entry is
 *   skipped, the apply failed), naming the first problem at file:line;
 * - success when the run left the account as that commit says, with no
 *   entry skipped: the commit is live;
 * - pending "suspended: …" when the run was suspended and left something
 *   unapplied (`status --wait-commit` exits 1 on it at once);
 * - pending otherwise: deletes held until the manifests settle ("held: N
 *   deletes"), a failure the daemon retries, a run not finished.
 */
export function commitVerdict(
  record: ReconcileRecord,
): { readonly commit: string; readonly status: CommitStatus } | null {
  const commit = record.git.checkoutCommit;
  const result = record.lastReconcile?.result;
  if (commit === null || result === undefined) return null;
  const failure = firstProblem(record);
  if (failure !== null) return { commit, status: { state: 'failure', description: fitDescription(failure) } };
  if ((result === 'in-sync' || result === 'applied') && record.git.lastAppliedCommit === commit) {
    return { commit, status: { state: 'success', description: 'live and in sync' } };
  }
  if (record.run?.input.mode === 'suspended') {
    // What the suspended run found is not applied: the commit waits for `edgesync resume`, and `status --wait-commit` stops on it.
    return { commit, status: { state: 'pending', description: SUSPENDED_DESCRIPTION } };
  }
  if (result === 'settling') {
    const held = record.settle.heldDeletes.length;
    return {
      commit,
      status: {
        state: 'pending',
        description: `held: ${held} delete${held === 1 ? '' : 's'} wait for the manifests to settle`,
      },
    };
  }
  if (result === 'failed') {
    return {
      commit,
      status: {
        state: 'pending',
        description: fitDescription(`retrying: ${record.lastError?.message ?? 'the reconcile failed'}`),
      },
    };
  }
  return { commit, status: RECONCILING };
}

/** What only a new commit or a person mends, first found first: what the commit's failure says. */
function firstProblem(record: ReconcileRecord): string | null {
  const result = record.lastReconcile?.result;
  if (result === 'invalid') {
    const problem = record.manifests.problems[0];
    if (problem === undefined) return 'the manifests are invalid';
    const place =
      problem.line === null ? problem.file : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
    return `${place}: ${problem.path === '' ? '' : `${problem.path}: `}${problem.message}`;
  }
  if (result === 'refused')
    return `refused: ${record.plan?.summary.refusal?.message ?? 'the plan is refused'}`;
  const skipped = record.skippedEntries[0];
  if (skipped !== undefined) {
    const place =
      skipped.file === null ? '' : `${skipped.file}:${skipped.line ?? 1}:${skipped.column ?? 1}: `;
    return `${place}skipped ${skipped.kind}.${skipped.name} (${skipped.reason}): ${skipped.message}`;
  }
  if (result === 'partial') {
    const failed = record.apply?.failures[0];
    return failed === undefined ? 'the apply failed' : `failed ${failed.action}: ${failed.message}`;
  }
  return null;
}
