#!/usr/bin/env node
// `npm start`'s prestart, and the tests' globalSetup (test/support/build-once.ts):
// build only what is stale. A full `npm run build` (tsc, then the CLI bundle)
// was 14 of `npm start`'s 15 s although nothing had changed.
// Plain JavaScript so that it runs on a fresh clone, before anything is
// compiled; there dist/ is missing, so everything is stale and it builds.
import { execFileSync } from 'node:child_process';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Files under `src/` whose `dist/src/….js` is missing or older, relative to `root`.
 * @param {string} root
 * @returns {string[]}
 */
export function staleSources(root) {
  const stale = [];
  for (const source of typescriptFiles(join(root, 'src'))) {
    const path = relative(root, source);
    const compiled = join(root, 'dist', path.replace(/\.ts$/, '.js'));
    let compiledAt;
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

/**
 * Whether dist/cli/main.js (the bundle, `edgesync`) is missing or older than a
 * compiled module under dist/src.
 * @param {string} root
 * @returns {boolean}
 */
export function bundleIsStale(root) {
  let bundledAt;
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

/**
 * Compiles when a source is newer than dist/, then bundles when the bundle is
 * older than dist/src: the two steps of `npm run build`, each only if needed.
 * Says on stderr what it did (and, unless `quiet`, that nothing was needed).
 * @param {string} root
 * @param {{ quiet?: boolean }} [options]
 * @returns {{ compiled: boolean, bundled: boolean }}
 */
export function buildIfStale(root, options = {}) {
  const stale = staleSources(root);
  if (stale.length > 0) {
    process.stderr.write(
      `build: ${stale.length} source file(s) newer than dist/ (${stale[0]}${stale.length > 1 ? ', …' : ''}); compiling\n`,
    );
    const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', '.'], { cwd: root, stdio: 'inherit' });
  }
  const bundled = bundleIsStale(root);
  if (bundled) {
    execFileSync(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs')], {
      cwd: root,
      stdio: 'inherit',
    });
  }
  if (stale.length === 0 && !bundled && options.quiet !== true)
    process.stderr.write('build: dist/ is up to date\n');
  return { compiled: stale.length > 0, bundled };
}

/** @param {string} directory */
function typescriptFiles(directory) {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  buildIfStale(fileURLToPath(new URL('..', import.meta.url)));
}
