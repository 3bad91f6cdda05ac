import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSeededEmulator } from './bench-emulator.js';
import { type BenchFigure, type BenchSection, figure, round } from './bench-figure.js';
import type { PlanFootprint } from './plan-footprint-child.js';
import { buildSyntheticAccount, rulesOnly, writeManifests } from './synthetic-account.js';

const SECTION = 'cpu-memory';
const OWNER = 'bench';
const CHILD = join(import.meta.dirname, 'plan-footprint-child.js');
const run = promisify(execFile);

async function measure(entries: number, dir: string): Promise<PlanFootprint> {
  const account = await buildSyntheticAccount({
    owner: OWNER,
    size: rulesOnly(entries),
  });
  const manifests = join(dir, `manifests-${entries}`);
  await writeManifests(account, manifests);
  const emulator = await startSeededEmulator(account.seed);
  try {
    const { stdout } = await run(process.execPath, [CHILD, emulator.url, manifests, OWNER], {
      env: { ...process.env, EDGE_API_KEY: emulator.apiKey },
      maxBuffer: 1024 * 1024,
    });
    return JSON.parse(stdout) as PlanFootprint;
  } finally {
    await emulator.close();
  }
}

function figuresOf(result: PlanFootprint): BenchFigure[] {
  const label = `${result.entries.toLocaleString('en-US')} entries`;
  const total = result.loadMs + result.readLiveMs + result.planMs + result.outputMs;
  return [
    figure(
      SECTION,
      `${label}: load + validate`,
      Math.round(result.loadMs),
      'ms',
      `yaml.parse floor ${Math.round(result.yamlParseMs)} ms (${round(result.loadMs / result.yamlParseMs, 1)}x)`,
    ),
    figure(
      SECTION,
      `${label}: read live (emulator)`,
      Math.round(result.readLiveMs),
      'ms',
      `${result.liveRequests} requests; JSON.parse floor ${Math.round(result.jsonParseMs)} ms`,
    ),
    figure(
      SECTION,
      `${label}: plan`,
      Math.round(result.planMs),
      'ms',
      `${result.actions} actions (no-op expected)`,
    ),
    figure(SECTION, `${label}: write the plan's text`, Math.round(result.outputMs), 'ms'),
    figure(SECTION, `${label}: total`, Math.round(total), 'ms'),
    figure(
      SECTION,
      `${label}: peak RSS`,
      Math.round(result.maxRssMB),
      'MB',
      'process.resourceUsage().maxRSS of the child',
    ),
  ];
}

export async function runPlanFootprintBench(quick: boolean): Promise<BenchSection> {
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-cpu-'));
  try {
    const results: PlanFootprint[] = [];
    for (const entries of quick ? [1000, 5000] : [10_000, 100_000]) results.push(await measure(entries, dir));
    return { section: SECTION, figures: results.flatMap(figuresOf), details: { results } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
