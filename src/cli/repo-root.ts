import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * The repository root that pull-request comments and SARIF name files
 * from: `--repo-root` when given, else the nearest directory at or above
 * `cwd` holding `.git` (a directory, or the file a worktree or submodule
 * has), as `git rev-parse --show-toplevel` would say; else `cwd`.
 */
export async function findRepoRoot(cwd: string, given?: string): Promise<string> {
  if (given !== undefined) return resolve(cwd, given);
  let directory = resolve(cwd);
  for (;;) {
    if (await exists(resolve(directory, '.git'))) return directory;
    const parent = dirname(directory);
    if (parent === directory) return resolve(cwd);
    directory = parent;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A file named relative to `cwd` (as manifests are displayed), named from
 * the repository root with `/` separators. A file outside the root keeps
 * its path as given: it cannot be placed in the repository anyway.
 */
export function pathFromRepoRoot(file: string, cwd: string, root: string): string {
  const fromRoot = relative(root, resolve(cwd, file));
  if (fromRoot.startsWith(`..${sep}`) || fromRoot === '..' || isAbsolute(fromRoot)) return file;
  return fromRoot.split(sep).join('/');
}

/** A file named relative to `cwd`, named from the repository root with `/` separators, `..` when outside it. */
export function relativeToRepoRoot(file: string, cwd: string, root: string): string {
  return relative(root, resolve(cwd, file)).split(sep).join('/');
}
