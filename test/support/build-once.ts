import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * vitest globalSetup: tests that run the CLI as a process run `dist/`. When
 * any source file is newer than its compiled file (or has none), compile
 * first: otherwise a bare `npx vitest run` after an edit tests stale code and
 * can pass while the source is broken. `npm test` compiles before vitest
 * starts, and then this finds nothing to do.
 */
export default function setup(): void {
  const stale = staleSources(ROOT);
  if (stale.length > 0) {
    process.stderr.write(
      `build-once: ${stale.length} source file(s) newer than dist/ (${stale[0]}${stale.length > 1 ? ', …' : ''}); compiling\n`,
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', '.'], { cwd: ROOT, stdio: 'inherit' });
  }
  // The CLI tests run is the bundle of dist/src (scripts/bundle-cli.mjs, the second step of `npm run build`).
  if (bundleIsStale(ROOT)) {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-cli.mjs')], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
}

/** Whether dist/cli/main.js is missing or older than a compiled module under dist/src. */
export function bundleIsStale(root: string): boolean {
  let bundledAt: number;
  try {
    bundledAt = statSync(join(root, 'dist', 'cli', 'main.js')).mtimeMs;
  } catch {
    return true;
  }
  return readdirSync(join(root, 'dist', 'src'), { withFileTypes: true, recursive: true }).some(
    (entry) =>
      entry.isFile() &&
      entry.name.endsWith('.js') &&
      statSync(join(entry.parentPath, entry.name)).mtimeMs > bundledAt,
  );
}

/** Files under `src/` whose `dist/src/….js` is missing or older, relative to `root`. */
export function staleSources(root: string): string[] {
  const stale: string[] = [];
  for (const source of typescriptFiles(join(root, 'src'))) {
    const path = relative(root, source);
    const compiled = join(root, 'dist', path.replace(/\.ts$/, '.js'));
    let compiledAt: number;
    try {
      compiledAt = statSync(compiled).mtimeMs;
    } catch {
      stale.push(path);
      continue;
    }
    if (statSync(source).mtimeMs > compiledAt) stale.push(path);
  }
  return stale;
}

function typescriptFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}
