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

/**
 * What a support ticket needs to know of the build that runs: edgesync's
 * version, Node's, and the platform. `edgesync version` and `doctor` print
 * them; the daemon's `edgesync_build_info` metric carries them as labels.
 */
export interface BuildFacts {
  readonly edgesync: string;
  /** Node's version, without the `v`. */
  readonly node: string;
  /** `process.platform`: linux, darwin, win32, … */
  readonly platform: string;
  /** `process.arch`: x64, arm64, … */
  readonly arch: string;
}

export const BUILD_FACTS: BuildFacts = {
  edgesync: VERSION,
  node: process.versions.node,
  platform: process.platform,
  arch: process.arch,
};

/** `edgesync 0.1.0 (node 20.20.2, linux x64)`: the facts on one line. */
export function buildFactsLine(facts: BuildFacts = BUILD_FACTS): string {
  return `edgesync ${facts.edgesync} (node ${facts.node}, ${facts.platform} ${facts.arch})`;
}
