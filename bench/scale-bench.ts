import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSeededEmulator } from './bench-emulator.js';
import { type BenchFigure, type BenchSection, figure, round } from './bench-figure.js';
import type { PlanFootprint } from './plan-footprint-child.js';
import { REPO_ROOT } from './repo-root.js';
import { renderScaleSvg } from './scale-chart.js';
import { buildSyntheticAccount, rulesOnly, writeManifests } from './synthetic-account.js';

const SECTION = 'scale';
const OWNER = 'bench';
const CHILD = join(import.meta.dirname, 'plan-footprint-child.js');
const run = promisify(execFile);

export type Mode = 'creates' | 'no-ops';

interface ScalePoint {
  readonly mode: Mode;
  readonly entries: number;
  /** Load + read live + plan + output, as `edgesync plan` pays it; undefined when the child did not finish in time. */
  readonly footprint?: PlanFootprint;
  readonly timedOut?: boolean;
}

/** The baseline RSS of a Node process that has loaded nothing: `node -e 0`'s maxRSS. */
async function baselineRssMB(): Promise<number> {
  const { stdout } = await run(process.execPath, [
    '-e',
    'console.log(process.resourceUsage().maxRSS / 1024)',
  ]);
  return Number(stdout.trim());
}

export async function measure(
  mode: Mode,
  entries: number,
  dir: string,
  timeoutMs: number,
): Promise<ScalePoint> {
  const account = await buildSyntheticAccount({
    owner: OWNER,
    seedManaged: mode === 'no-ops',
    overlappingCidrs: true,
    size: rulesOnly(entries),
  });
  const manifests = join(dir, `${mode}-${entries}`);
  await writeManifests(account, manifests);
  const emulator = await startSeededEmulator(account.seed);
  try {
    const { stdout } = await run(process.execPath, [CHILD, emulator.url, manifests, OWNER], {
      env: { ...process.env, EDGE_API_KEY: emulator.apiKey },
      maxBuffer: 1024 * 1024,
      timeout: timeoutMs,
    });
    return { mode, entries, footprint: JSON.parse(stdout) as PlanFootprint };
  } catch (error) {
    if ((error as { killed?: boolean }).killed === true) return { mode, entries, timedOut: true };
    throw error;
  } finally {
    await emulator.close();
    await rm(manifests, { recursive: true, force: true });
  }
}

/** Least-squares slope of log(value) over log(entries): 1 is linear, ~1.1 is N log N over these sizes, 2 quadratic. */
export function logLogSlope(points: readonly { entries: number; value: number }[]): number {
  const usable = points.filter((point) => point.value > 0);
  if (usable.length < 2) return Number.NaN;
  const xs = usable.map((point) => Math.log(point.entries));
  const ys = usable.map((point) => Math.log(point.value));
  const meanX = xs.reduce((sum, value) => sum + value, 0) / xs.length;
  const meanY = ys.reduce((sum, value) => sum + value, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  for (const [index, x] of xs.entries()) {
    covariance += (x - meanX) * ((ys[index] as number) - meanY);
    variance += (x - meanX) ** 2;
  }
  return covariance / variance;
}

function totalMs(footprint: PlanFootprint): number {
  return footprint.loadMs + footprint.readLiveMs + footprint.planMs + footprint.outputMs;
}

function figuresOf(points: readonly ScalePoint[], baselineMB: number, timeoutMs: number): BenchFigure[] {
  const figures: BenchFigure[] = [];
  for (const point of points) {
    const label = `${point.mode}, ${point.entries.toLocaleString('en-US')} rules`;
    const result = point.footprint;
    if (result === undefined) {
      figures.push(figure(SECTION, `${label}: plan`, `did not finish in ${timeoutMs / 1000} s`, ''));
      continue;
    }
    const floor = result.yamlParseMs + result.jsonParseMs;
    const warmFloor = result.yamlParseWarmMs + result.jsonParseWarmMs;
    figures.push(
      figure(
        SECTION,
        `${label}: load + read + plan + output`,
        Math.round(totalMs(result)),
        'ms',
        `load ${Math.round(result.loadMs)}, read ${Math.round(result.readLiveMs)}, plan ${Math.round(result.planMs)}, output ${Math.round(result.outputMs)}; yaml.parse + JSON.parse floor ${Math.round(floor)} ms (${round(totalMs(result) / floor, 2)}x), warm ${Math.round(warmFloor)} ms (${round(totalMs(result) / warmFloor, 2)}x); ${result.actions} actions`,
      ),
      figure(
        SECTION,
        `${label}: peak RSS`,
        Math.round(result.maxRssMB),
        'MB',
        `${round(((result.maxRssMB - baselineMB) * 1024) / result.entries, 2)} KB per entry above the ${Math.round(baselineMB)} MB of node -e 0; peak ${Math.round(result.maxRssAfterLoadMB)} MB when loading ended, ${Math.round(result.maxRssAfterReadMB)} MB after the live read, ${Math.round(result.maxRssAfterPlanMB)} MB after planning`,
      ),
    );
  }
  for (const mode of ['creates', 'no-ops'] as const) {
    const measured = points.filter((point) => point.mode === mode && point.footprint !== undefined);
    const time = logLogSlope(
      measured.map((point) => ({ entries: point.entries, value: totalMs(point.footprint as PlanFootprint) })),
    );
    const plan = logLogSlope(
      measured.map((point) => ({ entries: point.entries, value: (point.footprint as PlanFootprint).planMs })),
    );
    const rss = logLogSlope(
      measured.map((point) => ({
        entries: point.entries,
        value: (point.footprint as PlanFootprint).maxRssMB - baselineMB,
      })),
    );
    const sizes = measured.map((point) => point.entries.toLocaleString('en-US')).join(', ');
    figures.push(
      figure(
        SECTION,
        `${mode}: log-log slope of load + read + plan time`,
        round(time, 2),
        '',
        `fit over ${sizes}; 1 is linear, 2 quadratic`,
      ),
      figure(SECTION, `${mode}: log-log slope of the planning step`, round(plan, 2), ''),
      figure(SECTION, `${mode}: log-log slope of peak RSS above baseline`, round(rss, 2), ''),
    );
  }
  return figures;
}

/**
 * `scale`: plan time and peak RSS of `load + read live + plan + output` at growing
 * account sizes, for creates (empty account) and no-ops (converged account),
 * rules with overlapping CIDRs in both families. Writes docs/scale.svg.
 */
export async function runScaleBench(quick: boolean): Promise<BenchSection> {
  const sizes = quick ? [1000, 2000, 5000] : [1000, 10_000, 50_000, 100_000];
  const timeoutMs = quick ? 120_000 : 300_000;
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-scale-'));
  const points: ScalePoint[] = [];
  try {
    for (const mode of ['no-ops', 'creates'] as const) {
      for (const entries of sizes) {
        process.stderr.write(`bench: scale ${mode} ${entries}…\n`);
        const point = await measure(mode, entries, dir, timeoutMs);
        points.push(point);
        // A size that did not finish in time says enough: the larger ones would not either.
        if (point.timedOut) break;
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const baselineMB = await baselineRssMB();
  const series = (mode: Mode, value: (footprint: PlanFootprint) => number) =>
    points
      .filter((point) => point.mode === mode && point.footprint !== undefined)
      .map((point) => ({ entries: point.entries, value: value(point.footprint as PlanFootprint) }));
  const svg = renderScaleSvg(
    [
      {
        title: 'load + read live + plan + output',
        unit: 'ms',
        series: [
          { label: 'creates', color: '#c0392b', points: series('creates', totalMs) },
          { label: 'no-ops', color: '#2471a3', points: series('no-ops', totalMs) },
        ],
      },
      {
        title: 'peak RSS',
        unit: 'MB',
        series: [
          { label: 'creates', color: '#c0392b', points: series('creates', (result) => result.maxRssMB) },
          { label: 'no-ops', color: '#2471a3', points: series('no-ops', (result) => result.maxRssMB) },
        ],
      },
    ],
    `npm run bench, scale section, ${new Date().toISOString().slice(0, 10)}${quick ? ' (quick)' : ''}: rules with overlapping IPv4 and IPv6 CIDRs`,
  );
  // A quick run's chart would replace the documented one with smoke-run sizes: it goes to the temp dir.
  await writeFile(
    quick ? join(tmpdir(), 'edgesync-scale-quick.svg') : join(REPO_ROOT, 'docs', 'scale.svg'),
    svg,
  );
  return {
    section: SECTION,
    figures: figuresOf(points, baselineMB, timeoutMs),
    details: { baselineMB, points },
  };
}
