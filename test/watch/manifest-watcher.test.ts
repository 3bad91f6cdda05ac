import { mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManifestWatcher } from '../../src/watch/manifest-watcher.js';

interface Change {
  readonly event: string;
  readonly path: string;
}

/** Resolves once `predicate` holds, polling; fails after `limitMs` (a bound, not a measured duration). */
async function eventually(predicate: () => boolean, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('ManifestWatcher', () => {
  let dir: string;
  let watcher: ManifestWatcher | undefined;
  let changes: Change[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watcher-'));
    changes = [];
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  async function watchPaths(...paths: string[]): Promise<ManifestWatcher> {
    watcher = await ManifestWatcher.start({
      paths,
      cwd: dir,
      logger: pino({ level: 'silent' }),
      onChange: (change) => changes.push(change),
    });
    return watcher;
  }

  it('reports YAML files that appear, change, are renamed and vanish', async () => {
    await mkdir(join(dir, 'm'));
    await watchPaths('m');

    await writeFile(join(dir, 'm', 'a.yaml'), 'version: 1\n');
    await eventually(() => changes.some((c) => c.path.endsWith('a.yaml')));
    await rename(join(dir, 'm', 'a.yaml'), join(dir, 'm', 'b.yml'));
    await eventually(() => changes.some((c) => c.path.endsWith('b.yml')));
    await unlink(join(dir, 'm', 'b.yml'));
    await eventually(() => changes.some((c) => c.event === 'unlink' && c.path.endsWith('b.yml')));

    expect(changes.every((c) => /\.ya?ml$/.test(c.path))).toBe(true);
  });

  it('ignores editor swap files, hidden files and other extensions', async () => {
    await mkdir(join(dir, 'm'));
    await watchPaths('m');

    await writeFile(join(dir, 'm', '.a.yaml.swp'), 'x');
    await writeFile(join(dir, 'm', 'a.yaml~'), 'x');
    await writeFile(join(dir, 'm', 'notes.txt'), 'x');
    await writeFile(join(dir, 'm', 'z.yaml'), 'version: 1\n');
    await eventually(() => changes.some((c) => c.path.endsWith('z.yaml')));

    expect(changes.map((c) => c.path.slice(dir.length))).toEqual([join('/m', 'z.yaml')]);
  });

  it('notices a symlinked directory swapped to a new target (git-sync)', async () => {
    await mkdir(join(dir, 'rev1'));
    await mkdir(join(dir, 'rev2'));
    await writeFile(join(dir, 'rev1', 'a.yaml'), 'version: 1\n');
    await writeFile(join(dir, 'rev2', 'a.yaml'), 'version: 1\n');
    await symlink(join(dir, 'rev1'), join(dir, 'current'));
    await watchPaths('current');

    await symlink(join(dir, 'rev2'), join(dir, 'current.tmp'));
    await rename(join(dir, 'current.tmp'), join(dir, 'current'));
    await rm(join(dir, 'rev1'), { recursive: true });
    await eventually(() => changes.some((c) => c.event === 'retarget'));
    const before = changes.length;
    await writeFile(join(dir, 'rev2', 'b.yaml'), 'version: 1\n');
    await eventually(() => changes.length > before && changes.some((c) => c.path.endsWith('b.yaml')));

    expect(changes.find((c) => c.event === 'retarget')?.path).toBe(join(dir, 'current'));
  });

  it('notices the first git-sync clone: a path missing at start appears as a symlink (through its parent)', async () => {
    await watchPaths('current');
    await mkdir(join(dir, 'rev1'));
    await writeFile(join(dir, 'rev1', 'a.yaml'), 'version: 1\n');
    await symlink(join(dir, 'rev1'), join(dir, 'current.tmp'));
    await rename(join(dir, 'current.tmp'), join(dir, 'current'));
    await eventually(() => changes.length > 0);
    await writeFile(join(dir, 'rev1', 'a.yaml'), 'version: 1 # edited\n');
    await eventually(() => changes.some((c) => c.path.endsWith('a.yaml')));

    expect(changes[0]?.path).toBe(join(dir, 'current'));
  });

  it('follows repeated swaps of a symlink above the watched directory (git-sync /git/current/manifests)', async () => {
    for (const worktree of ['wt1', 'wt2', 'wt3']) {
      await mkdir(join(dir, worktree, 'manifests'), { recursive: true });
      await writeFile(join(dir, worktree, 'manifests', 'a.yaml'), `# ${worktree}\n`);
    }
    await symlink(join(dir, 'wt1'), join(dir, 'current'));
    await watchPaths(join('current', 'manifests'));
    const swapTo = async (next: string, previous: string): Promise<void> => {
      await symlink(join(dir, next), join(dir, 'current.tmp'));
      await rename(join(dir, 'current.tmp'), join(dir, 'current'));
      await rm(join(dir, previous), { recursive: true });
    };

    await swapTo('wt2', 'wt1');
    await eventually(() => changes.filter((c) => c.event === 'retarget').length === 1);
    await swapTo('wt3', 'wt2');
    await eventually(() => changes.filter((c) => c.event === 'retarget').length === 2);

    expect(changes.filter((c) => c.event === 'retarget').map((c) => c.path)).toEqual([
      join(dir, 'current', 'manifests'),
      join(dir, 'current', 'manifests'),
    ]);
  });

  it('notices a Kubernetes ConfigMap ..data swap', async () => {
    const mount = join(dir, 'mount');
    await mkdir(join(mount, '..2026_01_01'), { recursive: true });
    await writeFile(join(mount, '..2026_01_01', 'a.yaml'), 'version: 1\n');
    await symlink('..2026_01_01', join(mount, '..data'));
    await symlink(join('..data', 'a.yaml'), join(mount, 'a.yaml'));
    await watchPaths('mount');

    await mkdir(join(mount, '..2026_01_02'));
    await writeFile(join(mount, '..2026_01_02', 'a.yaml'), 'version: 1\n# changed\n');
    await symlink('..2026_01_02', join(mount, '..data_tmp'));
    await rename(join(mount, '..data_tmp'), join(mount, '..data'));
    await rm(join(mount, '..2026_01_01'), { recursive: true });
    await eventually(() => changes.length > 0);

    expect(changes.length).toBeGreaterThan(0);
  });

  it('watches each directory once with link loops, a link back up and a link to /, and still reports edits', async () => {
    await mkdir(join(dir, 'd', 'sub'), { recursive: true });
    await symlink('.', join(dir, 'd', 'loop'));
    await symlink(join('..', 'd'), join(dir, 'd', 'up'));
    await symlink('/', join(dir, 'd', 'root'));
    await symlink('..', join(dir, 'd', 'sub', 'back'));
    await watchPaths('d');

    const watchedAtStart = watcher?.watchedDirectories().length;
    await symlink(join('..', 'd'), join(dir, 'd', 'sub', 'up2'));
    await symlink('sub', join(dir, 'd', 'loop2'));
    await writeFile(join(dir, 'd', 'sub', 'a.yaml'), 'version: 1\n');
    await eventually(() => changes.some((c) => c.path.endsWith('a.yaml')));
    await watcher?.refresh();

    // d and d/sub, plus the parent of d: nothing through the loops, nothing below /.
    expect(watchedAtStart).toBe(3);
    expect(watcher?.watchedDirectories().length).toBe(3);
  });

  it('refresh reports nothing while the paths stay put', async () => {
    await mkdir(join(dir, 'm'));
    await watchPaths('m');

    const moved = await watcher?.refresh();

    expect(moved).toBe(false);
    expect(changes).toEqual([]);
  });
});
