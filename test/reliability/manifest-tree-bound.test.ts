import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_WALKED_DIRECTORIES, walkManifestTree } from '../../src/manifest/manifest-files.js';

/**
 * The walk's default bound, walked: MAX_WALKED_DIRECTORIES + 1 directories. Here because making and
 * removing 10,001 directories is seconds of a loaded npm test; test/manifest/manifest-tree.test.ts
 * holds the same stop at a bound of 40.
 */
describe('walkManifestTree', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-tree-bound-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('stops after MAX_WALKED_DIRECTORIES directories with one error', async () => {
    const names = Array.from({ length: MAX_WALKED_DIRECTORIES + 1 }, (_, index) => `d${index}`);
    await mkdir(join(dir, 'many'));
    for (let from = 0; from < names.length; from += 500) {
      await Promise.all(names.slice(from, from + 500).map((name) => mkdir(join(dir, 'many', name))));
    }

    const tree = await walkManifestTree(['many'], { cwd: dir });

    expect(tree.errors.map((error) => error.code)).toEqual(['too_many_directories']);
    expect(tree.directories).toHaveLength(MAX_WALKED_DIRECTORIES);
  });
});
