import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SINGLE_FILE_NAME } from '../../src/export/render-manifests.js';
import { INLINE_PARSE_BYTES } from '../../src/manifest/parse-in-worker.js';
import { BUILT_CLI } from '../support/built-cli.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const HOOKS = pathToFileURL(join(import.meta.dirname, 'record-loaded-modules.mjs')).href;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  /** Every module the process loaded, as paths relative to the repository (`dist/src/cli/main.js`) or `node:fs`. */
  readonly modules: readonly string[];
}

/**
 * Runs the built CLI with a loader hook that records every module Node loads
 * (main.js and what it imports), and with EDGESYNC_TRACE_LOADS, which records
 * every chunk main.js compiles itself and every module those chunks require
 * (src/cli/load-run-edgesync.ts): no loader hook sees those.
 */
async function runRecorded(args: readonly string[], dir: string): Promise<Run> {
  const name = args.join('-').replace(/[^a-z]+/g, '_');
  const logFile = join(dir, `modules-${name}.log`);
  const traceFile = join(dir, `chunks-${name}.log`);
  const register = `import { register } from 'node:module'; register(${JSON.stringify(HOOKS)}, { data: { logFile: ${JSON.stringify(logFile)} } });`;
  const child = spawn(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, BUILT_CLI, ...args],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, EDGESYNC_TRACE_LOADS: traceFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.resume();
  const code = await new Promise<number | null>((done) => child.on('close', done));
  const root = pathToFileURL(REPO_ROOT).href;
  const loaded = (await readFile(logFile, 'utf8'))
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('data:'))
    .map((url) => (url.startsWith(root) ? url.slice(root.length + 1) : url));
  // No trace when the run loads no chunk (`--version`).
  const traced = (await readFile(traceFile, 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => line !== '')
    .map((path) => (path.startsWith(`${REPO_ROOT}/`) ? path.slice(REPO_ROOT.length + 1) : path));
  return { code, stdout, modules: await sourceModules([...loaded, ...traced]) };
}

/**
 * The CLI is a bundle (scripts/bundle-cli.mjs): each loaded chunk of dist/cli/
 * stands for the modules it was built from, as the bundler recorded them in
 * dist/cli/modules.json (`dist/src/…` and `node_modules/…` paths). The chunk
 * itself stays in the list.
 */
async function sourceModules(loaded: readonly string[]): Promise<string[]> {
  const chunks = JSON.parse(await readFile(join(REPO_ROOT, 'dist/cli/modules.json'), 'utf8')) as Record<
    string,
    string[]
  >;
  return loaded.flatMap((module) => {
    if (!module.startsWith(BUNDLE_DIR)) return [module];
    const sources = chunks[module.slice(BUNDLE_DIR.length)];
    if (sources === undefined) throw new Error(`${module} is not in dist/cli/modules.json: a stale bundle?`);
    return [module, ...sources];
  });
}

const BUNDLE_DIR = 'dist/cli/';

/** The exit table (run-edgesync.js, beside main.js) and the error-code lists it spreads: small, and loaded by every command. */
const EXIT_TABLE = new Set([
  'dist/src/cli/run-edgesync.js',
  'dist/src/kinds/kind-error.js',
  'dist/src/manifest/manifest-error.js',
]);

function under(modules: readonly string[], pattern: RegExp): string[] {
  return modules.filter((module) => pattern.test(module) && !EXIT_TABLE.has(module));
}

/** The emulator (with each kind's part of it), the daemon and the exporter, and the apply machinery: none is needed to validate. */
const NOT_FOR_VALIDATE = /^dist\/src\/((emulator|watch|export|apply)\/|kinds\/[^/]+\/emulator)/;
/** Packages only other commands need: the logger, the metrics, the file watcher. */
const PACKAGES_NOT_FOR_VALIDATE = /node_modules\/(pino|pino-pretty|prom-client|chokidar)\//;

describe('each command loads its modules only when it runs', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('the CLI tests run is the bundle package.json names as the edgesync binary', async () => {
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(join(REPO_ROOT, manifest.bin.edgesync ?? '')).toBe(BUILT_CLI);
    expect(BUILT_CLI.endsWith(join('dist', 'cli', 'main.js'))).toBe(true);
  });

  it('--version answers before commander and the commands load', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-lazy-'));
    const run = await runRecorded(['--version'], dir);
    expect(run.code).toBe(0);
    const version = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')).version as string;
    expect(run.stdout).toBe(`${version}\n`);
    // The hook sees the CLI's own modules, so the empty lists below are not a hook that saw nothing.
    expect(run.modules).toContain('dist/src/cli/main.js');
    // main.js is main.ts with the exit codes, the chunk loader and the output streams: it loads no chunk for --version.
    expect(run.modules.filter((module) => module.startsWith('dist/cli/chunks/'))).toEqual([]);
    expect(
      under(
        run.modules,
        /^dist\/src\/(cli\/(?!(main|exit-codes|load-run-edgesync|cached-chunks|output-stream)\.js)|emulator|watch|export|apply|api|manifest|kinds|plan)/,
      ),
    ).toEqual([]);
    expect(under(run.modules, /node_modules\//)).toEqual([]);
  });

  it('-V and a command line commander parses print the same version', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-lazy-'));
    const short = await runRecorded(['-V'], dir);
    const parsed = await runRecorded(['--version', '--no-such-flag-after'], dir);
    const version = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')).version as string;
    expect(short.stdout).toBe(`${version}\n`);
    expect(parsed.stdout).toBe(`${version}\n`);
    expect(parsed.modules).toContain('dist/src/cli/command-line.js');
  });

  it('registering every command loads no command implementation', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-lazy-'));
    const run = await runRecorded(['--help'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/validate \[options\] \[paths\.\.\.\]/);
    expect(run.modules).toContain('dist/src/cli/validate-flags.js');
    expect(
      under(
        run.modules,
        /^dist\/src\/(emulator|watch|export|apply|api\/client|manifest|kinds\/registry|plan-session)/,
      ),
    ).toEqual([]);
    expect(under(run.modules, /-command\.js$/)).toEqual([]);
    expect(
      under(run.modules, /node_modules\/(ajv|yaml|pino|pino-pretty|prom-client|chokidar|p-queue)\//),
    ).toEqual([]);
  });

  it('validate loads neither the emulator, the daemon, the exporter nor apply', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-lazy-'));
    const run = await runRecorded(['validate', 'examples/manifests'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/files? valid/);
    expect(run.modules).toContain('dist/src/cli/validate-command.js');
    expect(under(run.modules, NOT_FOR_VALIDATE)).toEqual([]);
    expect(under(run.modules, PACKAGES_NOT_FOR_VALIDATE)).toEqual([]);
    expect(
      under(run.modules, /^dist\/src\/cli\/(apply|plan|show|watch|emulator|export)-command\.js$/),
    ).toEqual([]);
  });

  it('validate of small files starts no parsing worker; a file over 256 KB is parsed in the bundled one', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-lazy-'));
    const small = await runRecorded(['validate', 'examples/manifests'], dir);
    expect(small.modules).not.toContain('node:worker_threads');
    expect(small.modules).not.toContain('dist/src/manifest/parse-worker.js');

    const manifests = join(dir, 'big');
    await mkdir(manifests);
    const rules = Array.from(
      { length: 3000 },
      (_, index) =>
        `  rule-${index}:\n    ip_policy_id: ipp_BigManifestPolicy00000000001\n    action: allow\n` +
        `    cidr: 10.${index >> 8}.${index & 255}.0/24\n    description: rule number ${index} of a large file\n`,
    );
    const text = `version: 1\nip_policy_rules:\n${rules.join('')}`;
    expect(text.length).toBeGreaterThan(INLINE_PARSE_BYTES);
    await writeFile(join(manifests, 'rules.yaml'), text);
    const big = await runRecorded(['validate', '--allow-outside-root', manifests], dir);
    expect(big.code).toBe(0);
    expect(big.stdout).toMatch(/1 file valid \(3000 entries\)/);
    // The worker thread's loads pass through the same hook: the worker script was found in the bundle.
    expect(big.modules).toContain('dist/src/manifest/parse-worker.js');
  });

  it("show loads its own implementation and not plan's, nor the client", async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-lazy-'));
    const run = await runRecorded(['show', join(dir, 'no-such-plan.json')], dir);
    expect(run.code).toBe(1);
    expect(run.modules).toContain('dist/src/cli/show-command.js');
    expect(
      under(run.modules, /^dist\/src\/cli\/(apply|plan|validate|watch|emulator|export)-command\.js$/),
    ).toEqual([]);
    expect(under(run.modules, /^dist\/src\/(api\/client|emulator|watch|export)/)).toEqual([]);
  });

  it('an invalid manifest still exits 1 without loading the emulator or the exporter', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-lazy-'));
    const run = await runRecorded(['validate', 'test/cli/no-such-manifest.yaml'], dir);
    expect(run.code).toBe(1);
    expect(under(run.modules, NOT_FOR_VALIDATE)).toEqual([]);
  });

  it('the command table, every flags file and commander are one chunk: registering loads one file', async () => {
    const chunks = JSON.parse(await readFile(join(REPO_ROOT, 'dist/cli/modules.json'), 'utf8')) as Record<
      string,
      string[]
    >;
    const flagsFiles = (await readdir(join(REPO_ROOT, 'src/cli')))
      .filter((file) => file.endsWith('-flags.ts'))
      .map((file) => `dist/src/cli/${file.replace(/\.ts$/, '.js')}`);
    const registration = Object.values(chunks).find((modules) =>
      modules.includes('dist/src/cli/command-table.js'),
    );

    expect(flagsFiles.length).toBeGreaterThan(6);
    expect(registration).toEqual(
      expect.arrayContaining([...flagsFiles, 'node_modules/commander/lib/command.js']),
    );
  });

  it('a command imports flags files for their types only (a value import splits the registration chunk)', async () => {
    const commands = (await readdir(join(REPO_ROOT, 'src/cli'))).filter((file) =>
      file.endsWith('-command.ts'),
    );
    const valueImports = await Promise.all(
      commands.map(async (file) => {
        const text = await readFile(join(REPO_ROOT, 'src/cli', file), 'utf8');
        return [...text.matchAll(/^import (?!type )([^;]*?) from '\.\/([a-z-]+-flags)\.js';$/gms)].map(
          (match) =>
            `${file} imports ${(match[1] as string).replace(/\s+/g, ' ').replace(/,? \}$/, ' }')} from ${match[2]}`,
        );
      }),
    );

    expect(commands.length).toBeGreaterThan(6);
    expect(
      valueImports.flat().filter((line) => !/^\S+ imports \{ (type [^,}]+(, )?)+ \}/.test(line)),
    ).toEqual([]);
  });

  it('export, help export and plan --help show every flag', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-lazy-'));
    const help = await runRecorded(['export', '--help'], dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--tcp-edge <id>/);
    expect(help.stdout).toMatch(/--tls-edge <id>/);
    expect(help.stdout).toMatch(/--api-url <url>/);
    expect(help.stdout).toMatch(
      new RegExp(`--single-file +write one ${SINGLE_FILE_NAME.replace('.', '\\.')} `),
    );
    const helpCommand = await runRecorded(['help', 'export'], dir);
    expect(helpCommand.stdout).toMatch(/--tcp-edge <id>/);
    const planHelp = await runRecorded(['plan', '--help'], dir);
    expect(planHelp.stdout).toMatch(/--max-destroy/);
    expect(under(planHelp.modules, /^dist\/src\/(export|emulator|watch)\//)).toEqual([]);
  });
});
