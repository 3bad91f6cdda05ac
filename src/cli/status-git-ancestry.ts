import { execFile } from 'node:child_process';

/** How long one `git merge-base` may take, milliseconds. */
const GIT_TIMEOUT_MS = 10_000;

/**
 * Whether `later` is `commit` or one of its descendants. The same commit is
 * known without git (an abbreviated `commit` matches as a prefix); a
 * descendant only in a git checkout at `cwd` that holds both, by `git
 * merge-base --is-ancestor`. Anything git cannot answer (no git, no checkout,
 * a commit it does not hold) is false: `status --wait-commit` then waits for
 * the commit itself. Both are checked hex object names before they reach git.
 */
export async function reachesCommit(commit: string, later: string | null, cwd: string): Promise<boolean> {
  if (later === null) return false;
  if (later.startsWith(commit)) return true;
  return new Promise((resolve) => {
    execFile(
      'git',
      ['merge-base', '--is-ancestor', commit, later],
      { cwd, timeout: GIT_TIMEOUT_MS, windowsHide: true },
      (error) => resolve(error === null),
    );
  });
}
