import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The commit checked out where `path` lives, read from the files git keeps
 * (HEAD, refs, packed-refs) without spawning git, which the image does not
 * carry. Follows a worktree's `.git` file (`gitdir: …`), as git-sync makes,
 * and its `commondir`. null when `path` is in no checkout or HEAD names
 * nothing readable.
 */
export async function checkedOutCommit(path: string): Promise<string | null> {
  let dir: string;
  try {
    dir = await realpath(path);
    if (!(await stat(dir)).isDirectory()) dir = dirname(dir);
  } catch {
    return null;
  }
  for (;;) {
    const gitDir = await gitDirAt(dir);
    if (gitDir !== null) return readHead(gitDir);
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

async function readHead(gitDir: string): Promise<string | null> {
  const head = await readText(join(gitDir, 'HEAD'));
  if (head === null) return null;
  if (OBJECT_ID.test(head)) return head;
  const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
  if (ref === undefined) return null;
  const common = await readText(join(gitDir, 'commondir'));
  const commonDir = common === null ? gitDir : resolve(gitDir, common);
  for (const candidate of [join(gitDir, ref), join(commonDir, ref)]) {
    const id = await readText(candidate);
    if (id !== null && OBJECT_ID.test(id)) return id;
  }
  const packed = (await readText(join(commonDir, 'packed-refs'))) ?? '';
  for (const line of packed.split('\n')) {
    const [id, name] = line.split(' ');
    if (name === ref && id !== undefined && OBJECT_ID.test(id)) return id;
  }
  return null;
}

async function readText(file: string): Promise<string | null> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return null;
  }
}
