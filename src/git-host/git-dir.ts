import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** The files git keeps for one checkout: its own directory (HEAD) and the one it shares with other worktrees (refs, config). */
export interface GitDirs {
  /** `.git`, or a worktree's `.git/worktrees/NAME` (from a `.git` file's `gitdir:`). */
  readonly gitDir: string;
  /** Where refs, packed-refs, objects and config live: `commondir`'s target for a worktree, else `gitDir`. */
  readonly commonDir: string;
}

/**
 * The git directories of the checkout `path` lives in, found by walking up
 * from it, without spawning git (the image carries none). Follows a
 * worktree's `.git` file (`gitdir: …`), as git-sync makes, and its
 * `commondir`. null when `path` is in no checkout.
 */
export async function findGitDirs(path: string): Promise<GitDirs | null> {
  let dir: string;
  try {
    dir = await realpath(path);
    if (!(await stat(dir)).isDirectory()) dir = dirname(dir);
  } catch {
    return null;
  }
  for (;;) {
    const gitDir = await gitDirAt(dir);
    if (gitDir !== null) {
      const common = await readGitText(join(gitDir, 'commondir'));
      return { gitDir, commonDir: common === null ? gitDir : resolve(gitDir, common) };
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

async function gitDirAt(dir: string): Promise<string | null> {
  const dotGit = join(dir, '.git');
  try {
    if ((await stat(dotGit)).isDirectory()) return dotGit;
    const link = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8'));
    return link?.[1] === undefined ? null : resolve(dir, link[1].trim());
  } catch {
    return null;
  }
}

/** A small file of git's, trimmed; null when it cannot be read. */
export async function readGitText(file: string): Promise<string | null> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return null;
  }
}
