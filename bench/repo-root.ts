import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The checkout's root, found by walking up: the same code runs from `bench/` (vitest) and `dist/bench/`. */
function findRepoRoot(): string {
  let dir = import.meta.dirname;
  for (let depth = 0; depth < 6; depth += 1) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'edgesync'
    ) {
      return dir;
    }
    dir = dirname(dir);
  }
  throw new Error(`no edgesync package.json above ${import.meta.dirname}`);
}

export const REPO_ROOT = findRepoRoot();

/** The built CLI entry, the `edgesync` binary (the bundle); `npm run bench` builds it first. */
export const CLI_PATH = join(REPO_ROOT, 'dist', 'cli', 'main.js');
