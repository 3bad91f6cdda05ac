#!/usr/bin/env node
// `npm run build`, second step: bundles the compiled CLI (dist/src/cli/) into
// dist/cli/, the `edgesync` binary. Unbundled, `validate` loaded about 200
// files (our modules, yaml's 80 CommonJS files, commander's), and resolving
// and reading them was most of its start time; one file per lazily loaded
// command is far less.
//
// Two outputs, both CommonJS (dist/cli/package.json says so):
// - dist/cli/main.js, main.ts alone (with the version and the chunk loader):
//   `edgesync --version` reads this one file. CommonJS because an ES module
//   entry starts Node's ES module loader, about 6 ms of CPU on Node 26.
// - dist/cli/chunks/, chunks of run-edgesync.ts and everything below it, one
//   per lazily loaded command, that main.js compiles as scripts with a code
//   cache made after the command ran (src/cli/cached-chunks.ts explains why an
//   ES module cannot have one). The parse worker's are loaded by Node itself.
// dist/cli/modules.json names the modules in each output file for the test
// that proves a command loads only its own code (test/cli/lazy-commands.test.ts).
// Plain JavaScript so that it runs where only src/ is compiled (the Dockerfile).
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
 * that require was about 3 ms of every command's start (docs/performance.md). The
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
 * about 2 ms of `validate` (docs/performance.md). Dropping the createRequire line leaves
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

/**
 * Loading and checking manifests (yaml, the kinds, the schema validator) in
 * one chunk: `validate` loaded it as eight, and each chunk is a file to stat
 * and read, a cache to read and a script to compile (docs/performance.md). Not the error
 * classes and kind names that run-edgesync.js and the command line load for
 * every command, so that `--help` still loads none of it; not a kind's part
 * of the emulator (`src/kinds/<kind>/emulator*.ts`), which only the emulator loads.
 */
const MANIFEST_LOADING =
  /\/node_modules\/(yaml|ipaddr\.js|fastest-levenshtein|p-queue|p-timeout|eventemitter3|ajv)\/|\/dist\/src\/(manifest\/(?!manifest-error\.js)|kinds\/(?!kind-name\.js|kind-error\.js|[^/]+\/emulator)|plan-session\/manifests-read\.js|json-value\.js|json-pointer\.js|api\/api-error\.js|cli\/(duration-option|repo-root|log-level|manifest-error-lines)\.js)/;

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

function onLog(level, log, report) {
  // parse-in-worker.js imports the parser lazily only for sources run without a build; in the
  // bundle the parser is loaded anyway, and rolldown's note that the import splits nothing is noise.
  if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
  // These plugins change one line in place, so the source map's lines stay right.
  if (log.code === 'SOURCEMAP_BROKEN' && PLUGINS_KEEPING_LINES.has(log.plugin)) return;
  report(level, log);
}

/** Builds with `input` and `output`, and returns each written chunk's source modules, keyed by its path under dist/cli. */
async function build(input, output, prefix, external = isExternal) {
  const bundle = await rolldown({
    input,
    platform: 'node',
    external,
    plugins: [lazyCommanderChildProcess, bundledAjvRuntime],
    // An entry chunk may take in modules beside its own (run-edgesync.js takes the error classes): what
    // codeSplitting.includeDependenciesRecursively: false needs, and what rolldown would set itself.
    preserveEntrySignatures: 'allow-extension',
    logLevel: 'warn',
    onLog,
  });
  try {
    const { output: written } = await bundle.write({ sourcemap: true, ...output });
    const modules = {};
    for (const chunk of written) {
      if (chunk.type !== 'chunk') continue;
      modules[`${prefix}${chunk.fileName}`] = chunk.moduleIds
        .filter((id) => !id.startsWith('\0'))
        .map((id) => relative(ROOT, id).split('\\').join('/'))
        .sort();
    }
    return modules;
  } finally {
    await bundle.close();
  }
}

export async function bundleCli() {
  // Chunk names carry a content hash: without this, every build would leave the previous chunks behind.
  rmSync(OUT_DIR, { recursive: true, force: true });
  const chunksDir = join(OUT_DIR, 'chunks');
  mkdirSync(chunksDir, { recursive: true });
  writeFileSync(join(OUT_DIR, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
  const cjsChunk = {
    dir: chunksDir,
    format: 'cjs',
    // ES modules are strict; so must their chunks be, compiled as scripts or required by the worker.
    strict: true,
    // `import('node:worker_threads')` as a require: a chunk compiled as a script has no module loader.
    dynamicImportInCjs: false,
    // ASCII, read as latin1 (cached-chunks.ts): decoding UTF-8 with any non-ASCII character in it
    // into a string took 6-12 ms for validate's 700 KB of chunks on Node 26, latin1 under 1 ms.
    charset: 'ascii',
    // What charset cannot escape is in doc comments, which a chunk does not need (its source map keeps them).
    comments: { legal: true, annotation: true, jsdoc: false },
    entryFileNames: '[name].js',
  };
  // parse-in-worker.js starts `./parse-worker.js` next to itself: in the bundle, next to every chunk. One
  // file, built apart: as an entry of the build below, it took in the chunk of manifest modules.
  const worker = await build(
    { 'parse-worker': join(ROOT, 'dist/src/manifest/parse-worker.js') },
    { ...cjsChunk, codeSplitting: false },
    'chunks/',
  );
  const chunks = await build(
    { 'run-edgesync': join(ROOT, 'dist/src/cli/run-edgesync.js') },
    {
      ...cjsChunk,
      chunkFileNames: '[name]-[hash].js',
      codeSplitting: {
        groups: [{ name: 'manifests', test: MANIFEST_LOADING, includeDependenciesRecursively: false }],
      },
    },
    'chunks/',
  );
  // Last, so that main.js is the newest file of the bundle (scripts/build-if-stale.mjs compares with it).
  // CommonJS for the reason above; main.ts has no top-level await for it.
  const main = await build(
    { main: join(ROOT, 'dist/src/cli/main.js') },
    { dir: OUT_DIR, format: 'cjs', strict: true, entryFileNames: '[name].js', codeSplitting: false },
    '',
    // load-run-edgesync.js imports run-edgesync.js only when run unbundled; main.js loads the chunks.
    (specifier) => specifier === './run-edgesync.js' || isExternal(specifier),
  );
  // package.json's bin: npx, npm's links and a shell run it by its shebang, which needs the execute bit.
  chmodSync(join(OUT_DIR, 'main.js'), 0o755);
  writeFileSync(
    join(OUT_DIR, 'modules.json'),
    `${JSON.stringify({ ...main, ...chunks, ...worker }, null, 2)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleCli();
