import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSeededEmulator } from './bench-emulator.js';
import { type BenchSection, figure, median, round } from './bench-figure.js';
import { CLI_PATH } from './repo-root.js';
import { buildSyntheticAccount, rulesOnly, writeManifests } from './synthetic-account.js';

const SECTION = 'cli-plan';
const OWNER = 'bench';
const YAML_CHILD = join(import.meta.dirname, 'yaml-parse-child.js');

/**
 * Loaded by both processes before their own code (`--require`): writes the
 * process's CPU time (every thread's, user and system) to the file the
 * bench names, as it exits. Node gives a parent no child's resource usage.
 */
const CPU_AT_EXIT = `'use strict';
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  require('node:fs').writeFileSync(process.env.EDGESYNC_BENCH_CPU_FILE, JSON.stringify({ ms: (user + system) / 1000 }));
});
`;

/** One process from spawn to exit, its stdout read through a pipe as CI reads it. */
interface ProcessTime {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly stdout: string;
}

async function timeProcess(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cpuFile: string,
  keepStdout: boolean,
): Promise<ProcessTime> {
  // A child that dies before its exit hook must not be read as the one before it.
  await rm(cpuFile, { force: true });
  const { wallMs, stdout } = await new Promise<{ wallMs: number; stdout: string }>((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(process.execPath, args, {
      env: { ...env, EDGESYNC_BENCH_CPU_FILE: cpuFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (keepStdout) out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const elapsed = performance.now() - startedAt;
      if (code === 0) resolve({ wallMs: elapsed, stdout: out });
      else reject(new Error(`${args.slice(1).join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
  const { ms } = JSON.parse(await readFile(cpuFile, 'utf8')) as { ms: number };
  return { wallMs, cpuMs: ms, stdout };
}

interface Sample {
  readonly planWallMs: number[];
  readonly planCpuMs: number[];
  readonly yamlWallMs: number[];
  readonly yamlCpuMs: number[];
  readonly parseOnlyMs: number[];
}

/**
 * `cli-plan`: a plan of N rule creates (an empty account; rules with
 * overlapping CIDRs in both families, 1,000 to a file) as a whole process
 * of the built CLI, `edgesync plan DIR` against the emulator, beside a
 * process that does nothing but `yaml.parse` the same files. Both sides are
 * timed alike, from spawn to exit with their stdout drained through a pipe,
 * so each pays Node's start-up, reading the files and loading its modules;
 * the pairs run in turn, so that a machine busy with something else slows
 * both alike, after one unmeasured pair (the files in the page cache,
 * edgesync's code cache written). The goal, ≤ 1.3x at 100,000, is the ratio
 * of the wall medians; the CPU ratio (every thread, user and system) and the
 * parses alone, timed inside the yaml process, are printed beside it
 * (docs/performance.md).
 */
export async function runCliPlanBench(quick: boolean): Promise<BenchSection> {
  const entries = quick ? 5_000 : 100_000;
  const runs = quick ? 2 : 5;
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-cli-plan-'));
  const cpuFile = join(dir, 'cpu.json');
  const preload = join(dir, 'cpu-at-exit.cjs');
  await writeFile(preload, CPU_AT_EXIT);
  const account = await buildSyntheticAccount({
    owner: OWNER,
    seedManaged: false,
    overlappingCidrs: true,
    size: rulesOnly(entries),
  });
  const manifests = join(dir, 'manifests');
  await writeManifests(account, manifests);
  const emulator = await startSeededEmulator(account.seed);
  const env = {
    ...process.env,
    EDGE_API_URL: emulator.url,
    EDGE_API_KEY: emulator.apiKey,
    EDGESYNC_OWNER: OWNER,
  };
  const plan = (): Promise<ProcessTime> =>
    timeProcess(['--require', preload, CLI_PATH, 'plan', manifests], env, cpuFile, false);
  const parse = (): Promise<ProcessTime> =>
    timeProcess(['--require', preload, YAML_CHILD, manifests], process.env, cpuFile, true);
  const loadBefore = loadavg()[0] ?? 0;
  const sample: Sample = { planWallMs: [], planCpuMs: [], yamlWallMs: [], yamlCpuMs: [], parseOnlyMs: [] };
  try {
    await plan();
    await parse();
    for (let index = 0; index < runs; index += 1) {
      const planned = await plan();
      sample.planWallMs.push(planned.wallMs);
      sample.planCpuMs.push(planned.cpuMs);
      const parsed = await parse();
      sample.yamlWallMs.push(parsed.wallMs);
      sample.yamlCpuMs.push(parsed.cpuMs);
      sample.parseOnlyMs.push((JSON.parse(parsed.stdout) as { parseMs: number }).parseMs);
    }
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
  const loadAfter = loadavg()[0] ?? 0;
  return {
    section: SECTION,
    figures: cliPlanFigures(
      entries,
      runs,
      sample,
      `load average ${round(loadBefore, 1)} → ${round(loadAfter, 1)}`,
    ),
    details: { entries, ...sample, loadAverage: [loadBefore, loadAfter] },
  };
}

function cliPlanFigures(
  entries: number,
  runs: number,
  sample: Sample,
  load: string,
): BenchSection['figures'] {
  const size = `${entries.toLocaleString('en-US')} rule creates in ${Math.ceil(entries / 1000)} files`;
  const pairs = sample.planWallMs.map((ms, index) => ms / (sample.yamlWallMs[index] as number));
  const planWall = median(sample.planWallMs);
  const yamlWall = median(sample.yamlWallMs);
  return [
    figure(
      SECTION,
      `edgesync plan, ${size}: median of ${runs}`,
      Math.round(planWall),
      'ms',
      'wall, spawn to exit: Node start-up, the CLI, load, live read from the emulator, plan, text to a pipe',
    ),
    figure(
      SECTION,
      `yaml.parse of the same files: median of ${runs}`,
      Math.round(yamlWall),
      'ms',
      'wall, spawn to exit: Node start-up, importing yaml, reading the files, yaml.parse of each',
    ),
    figure(
      SECTION,
      'edgesync plan / yaml.parse, wall',
      round(planWall / yamlWall, 2),
      'x',
      `goal ≤ 1.3x; pairs ${round(Math.min(...pairs), 2)}-${round(Math.max(...pairs), 2)}x; ${load}`,
    ),
    figure(
      SECTION,
      'edgesync plan / yaml.parse, CPU',
      round(median(sample.planCpuMs) / median(sample.yamlCpuMs), 2),
      'x',
      `every thread, user + system: ${Math.round(median(sample.planCpuMs))} ms against ${Math.round(median(sample.yamlCpuMs))} ms`,
    ),
    figure(
      SECTION,
      'edgesync plan / the parses alone',
      round(planWall / median(sample.parseOnlyMs), 2),
      'x',
      `the yaml process's parses timed inside it (${Math.round(median(sample.parseOnlyMs))} ms), without start-up or reading`,
    ),
  ];
}
