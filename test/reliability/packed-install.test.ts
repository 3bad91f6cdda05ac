import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** What a fresh clone holds that packing needs; node_modules is linked from this checkout (as `npm ci` would install it). */
const CLONED = [
  'src',
  'scripts',
  'schemas',
  'examples',
  'README.md',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
];

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    execFile(
      command,
      [...args],
      {
        cwd,
        // HOME: npm's cache, which --prefer-offline reads.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 600_000,
      },
      (error, stdout, stderr) =>
        done({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
          stdout,
          stderr,
        }),
    );
  });
}

/**
 * The package as npm publishes it: packed from a clone that was never built
 * (prepack builds it), installed into an empty project from the tarball with
 * its dependencies from npm's cache where it can (--prefer-offline), and run
 * from node_modules/.bin with no build step: validate, the emulator, and a
 * plan against that emulator.
 */
describe('the packed tarball installs and runs', () => {
  let base: string;
  let project: string;
  let tarball: string;
  let packed: Run;
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'edgesync-packed-'));
    const clone = join(base, 'clone');
    await mkdir(clone);
    for (const entry of CLONED) await cp(join(ROOT, entry), join(clone, entry), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
    packed = await run('npm', ['pack', '--pack-destination', base, '--json'], clone);
    tarball = join(base, (await readdir(base)).find((name) => name.endsWith('.tgz')) ?? 'missing.tgz');
    project = join(base, 'project');
    await mkdir(project);
    await writeFile(
      join(project, 'package.json'),
      '{ "name": "uses-edgesync", "version": "1.0.0", "private": true }\n',
    );
  }, 600_000);

  afterAll(async () => {
    for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
    await rm(base, { recursive: true, force: true });
  });

  it('prepack builds: the tarball holds the bundle and the compiled sources', () => {
    expect(packed.code, packed.stderr).toBe(0);
    const [listing] = JSON.parse(packed.stdout) as [{ files: { path: string }[] }];
    const paths = listing.files.map((file) => file.path);
    expect(paths).toContain('dist/cli/main.js');
    expect(paths.some((path) => path.startsWith('dist/cli/chunks/'))).toBe(true);
    expect(paths.some((path) => path.startsWith('dist/src/'))).toBe(true);
    expect(paths).toContain('schemas/manifest.schema.json');
    expect(paths.some((path) => path.startsWith('src/') || path.startsWith('test/'))).toBe(false);
  });

  it('installs into an empty project and runs validate, the emulator, and plan against it', async () => {
    const install = await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball],
      project,
    );
    expect(install.code, install.stderr).toBe(0);
    const bin = join(project, 'node_modules', '.bin', 'edgesync');
    const examples = join(project, 'node_modules', 'edgesync', 'examples');

    const validate = await run(bin, ['validate', join(examples, 'manifests')], project);
    const emulator = spawn(
      bin,
      ['emulator', '--seed', join(examples, 'emulator-seed.yaml'), '--api-key', 'dev-key', '--port', '0'],
      { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.push(emulator);
    const url = await new Promise<string>((resolveUrl, reject) => {
      let text = '';
      emulator.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const found = /^(http\S+)\n/.exec(text)?.[1];
        if (found !== undefined) resolveUrl(found);
      });
      emulator.once('exit', (code) => reject(new Error(`the installed emulator exited ${code}: ${text}`)));
    });
    const plan = await run(
      'sh',
      [
        '-c',
        `EDGE_API_URL=${url} EDGE_API_KEY=dev-key OIDC_CLIENT_SECRET=x "${bin}" plan "${join(examples, 'manifests')}"`,
      ],
      project,
    );
    emulator.kill('SIGTERM');
    const stopped = await new Promise<number | null>((done) => emulator.once('exit', (code) => done(code)));

    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/^6 files valid \(7 entries\)$/m);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      'Plan: 4 to create (1 then updated), 0 to update, 0 to replace, 0 to delete, 1 to adopt, 6 module(s) to write.',
    );
    expect(stopped).toBe(0);
  });
});
