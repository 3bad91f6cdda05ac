import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package version, found by walking up from this module: the same code
 * runs from `src/` under vitest and from `dist/src/` when built.
 */
function readVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth += 1) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'edgesync' && pkg.version) return pkg.version;
    } catch {
      // not here: keep walking up
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}

export const VERSION = readVersion();
export const USER_AGENT = `edgesync/${VERSION} (node ${process.versions.node})`;
