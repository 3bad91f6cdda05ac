#!/usr/bin/env node
// `npm run build`, second step: bundles the compiled CLI (dist/src/cli/main.js)
// into dist/cli/, the `edgesync` binary. Issue 18: `validate` loaded about 200
// files (our modules, yaml's 80 CommonJS files, commander's), and resolving
// and reading them was most of its start time; one file per lazily loaded
// command is far less. Each command's dynamic import stays a separate chunk,
// so a command still loads only its own code; dist/cli/modules.json names
// the modules in each chunk for the test that proves it
// (test/cli/lazy-commands.test.ts). Plain JavaScript so that it runs where
// only src/ is compiled (the Dockerfile).
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = join(ROOT, 'dist', 'cli');

/**
 * Packages bundled in: the ones `validate` and `plan` load, pure JavaScript.
 * Every other package stays an import of node_modules: pino starts its
 * transports (pino-pretty) by file name in worker threads, and the rest are
 * loaded only by the commands that need them. The Ajv runtime helpers the
 * generated validator requires are bundled too (see bundledAjvRuntime).
 */
const BUNDLED_PACKAGES = new Set([
  'yaml',
  'commander',
  'ipaddr.js',
  'p-queue',
  'eventemitter3',
  'p-timeout',
  'fastest-levenshtein',
]);

/**
 * commander requires `node:child_process` when it loads, for the external
 * subcommands (`git-style` executables) edgesync does not have; on Node 26
 * that require was about 3 ms of every command's start (issue 18). The
 * bundle requires it when commander spawns, which it never does here.
 */
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyCommanderChildProcess = {
  name: 'lazy-commander-child-process',
  transform(code, id) {
    if (!id.split('\\').join('/').endsWith('/node_modules/commander/lib/command.js')) return null;
    if (!code.includes(COMMANDER_CHILD_PROCESS)) {
      throw new Error(
        `bundle-cli: commander's require of node:child_process changed in ${id}; update the plugin`,
      );
    }
    return code.replace(
      COMMANDER_CHILD_PROCESS,
      "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
    );
  },
};

/**
 * The generated manifest validator requires Ajv's runtime helpers (ucs2length,
 * one small function) through createRequire, which rolldown cannot see; on
 * Node 26 that started the CommonJS loader and its package.json lookups,
 * about 2 ms of `validate` (issue 18). Dropping the createRequire line leaves
 * plain `require()` calls, which rolldown bundles with CommonJS semantics.
 */
const GENERATED_VALIDATOR_REQUIRE = 'const require = createRequire(import.meta.url);';
const bundledAjvRuntime = {
  name: 'bundled-ajv-runtime',
  transform(code, id) {
    if (!id.split('\\').join('/').endsWith('/dist/src/manifest/manifest-validator.generated.js')) return null;
    if (!code.includes(GENERATED_VALIDATOR_REQUIRE)) {
      throw new Error(
        `bundle-cli: the generated validator no longer defines require in ${id}; update the plugin`,
      );
    }
    return code.replace(GENERATED_VALIDATOR_REQUIRE, '');
  },
};

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

function isExternal(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('\0')) return false;
  if (specifier.startsWith('node:')) return true;
  if (specifier.startsWith('ajv/dist/runtime/')) return false;
  return !BUNDLED_PACKAGES.has(packageName(specifier));
}

const PLUGINS_KEEPING_LINES = new Set([lazyCommanderChildProcess.name, bundledAjvRuntime.name]);

export async function bundleCli() {
  // Chunk names carry a content hash: without this, every build would leave the previous chunks behind.
  rmSync(OUT_DIR, { recursive: true, force: true });
  const bundle = await rolldown({
    input: {
      main: join(ROOT, 'dist/src/cli/main.js'),
      // parse-in-worker.js starts `./parse-worker.js` next to itself: in the bundle, next to every chunk.
      'parse-worker': join(ROOT, 'dist/src/manifest/parse-worker.js'),
    },
    platform: 'node',
    external: isExternal,
    plugins: [lazyCommanderChildProcess, bundledAjvRuntime],
    logLevel: 'warn',
    onLog(level, log, report) {
      // parse-in-worker.js imports the parser lazily only for sources run without a build; in the
      // bundle the parser is loaded anyway, and rolldown's note that the import splits nothing is noise.
      if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
      // These plugins change one line in place, so the source map's lines stay right.
      if (log.code === 'SOURCEMAP_BROKEN' && PLUGINS_KEEPING_LINES.has(log.plugin)) return;
      report(level, log);
    },
  });
  try {
    const { output } = await bundle.write({
      dir: OUT_DIR,
      format: 'esm',
      entryFileNames: '[name].js',
      chunkFileNames: '[name]-[hash].js',
      sourcemap: true,
    });
    const modules = {};
    for (const chunk of output) {
      if (chunk.type !== 'chunk') continue;
      modules[chunk.fileName] = chunk.moduleIds
        .filter((id) => !id.startsWith('\0'))
        .map((id) => relative(ROOT, id).split('\\').join('/'))
        .sort();
    }
    writeFileSync(join(OUT_DIR, 'modules.json'), `${JSON.stringify(modules, null, 2)}\n`);
  } finally {
    await bundle.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleCli();
