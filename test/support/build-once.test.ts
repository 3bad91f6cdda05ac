import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleSources } from './build-once.js';

describe('build-once: which sources are newer than dist/', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it('names a source edited after its compiled file, and one never compiled', async () => {
    root = await mkdtemp(join(tmpdir(), 'edgesync-build-once-'));
    await mkdir(join(root, 'src/cli'), { recursive: true });
    await mkdir(join(root, 'dist/src/cli'), { recursive: true });
    const old = new Date('2026-01-01T00:00:00Z');
    const later = new Date('2026-01-02T00:00:00Z');
    for (const name of ['fresh', 'edited']) {
      await writeFile(join(root, `src/cli/${name}.ts`), '');
      await writeFile(join(root, `dist/src/cli/${name}.js`), '');
    }
    await writeFile(join(root, 'src/cli/new.ts'), '');
    await utimes(join(root, 'src/cli/fresh.ts'), old, old);
    await utimes(join(root, 'dist/src/cli/fresh.js'), later, later);
    await utimes(join(root, 'dist/src/cli/edited.js'), old, old);
    await utimes(join(root, 'src/cli/edited.ts'), later, later);

    const stale = staleSources(root);

    expect(stale.sort()).toEqual([join('src/cli/edited.ts'), join('src/cli/new.ts')]);
  });
});
