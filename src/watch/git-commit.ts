import { join } from 'node:path';
import { findGitDirs, type GitDirs, readGitText } from '../git-host/git-dir.js';

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The commit checked out where `path` lives, read from the files git keeps
 * (HEAD, refs, packed-refs) without spawning git, which the image does not
 * carry. Follows a worktree's `.git` file (`gitdir: …`), as git-sync makes,
 * and its `commondir`. null when `path` is in no checkout or HEAD names
 * nothing readable.
 */
export async function checkedOutCommit(path: string): Promise<string | null> {
  const dirs = await findGitDirs(path);
  return dirs === null ? null : readHead(dirs);
}

async function readHead({ gitDir, commonDir }: GitDirs): Promise<string | null> {
  const head = await readGitText(join(gitDir, 'HEAD'));
  if (head === null) return null;
  if (OBJECT_ID.test(head)) return head;
  const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
  if (ref === undefined) return null;
  for (const candidate of [join(gitDir, ref), join(commonDir, ref)]) {
    const id = await readGitText(candidate);
    if (id !== null && OBJECT_ID.test(id)) return id;
  }
  const packed = (await readGitText(join(commonDir, 'packed-refs'))) ?? '';
  for (const line of packed.split('\n')) {
    const [id, name] = line.split(' ');
    if (name === ref && id !== undefined && OBJECT_ID.test(id)) return id;
  }
  return null;
}
