import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SeedEntry } from '../src/emulator/seed.js';
import { startSeededEmulator } from './bench-emulator.js';
import { type BenchFigure, type BenchSection, figure, round } from './bench-figure.js';
import { startWatch, stopWatch, until } from './daemon-latency-bench.js';
import { buildSyntheticAccount, rulesOnly, writeManifests } from './synthetic-account.js';

const SECTION = 'daemon-memory';
const OWNER = 'bench';

/**
 * `no-ops`: the account holds what the manifests say. `drift`: one rule in
 * DRIFT_EVERY was changed behind edgesync's back (an update each, read by
 * ID before the plan). `creates`: the account holds none of them.
 */
type Mode = 'no-ops' | 'drift' | 'creates';

const DRIFT_EVERY = 10;

interface DaemonPoint {
  readonly mode: Mode;
  readonly rules: number;
  /** VmHWM of the daemon once its first reconcile finished; undefined without /proc (not Linux). */
  readonly peakRssMB: number | undefined;
  /**
   * VmHWM once a reload (SIGHUP) finished reconciling: it reads and builds
   * every file again, as the resync does every --interval, while the last
   * valid desired state and the live-state cache are still held.
   */
  readonly peakAfterReloadMB: number | undefined;
  readonly result: string;
  readonly reconcileMs: number;
  readonly reloadMs: number;
  readonly changes: number;
}

const run = promisify(execFile);

/** The kernel's high-water mark of a process's resident set (VmHWM of /proc/PID/status): its peak, with nothing sampled. */
function peakInStatus(status: string | undefined): number | undefined {
  const match = status === undefined ? null : /^VmHWM:\s+(\d+) kB$/m.exec(status);
  return match?.[1] === undefined ? undefined : Number(match[1]) / 1024;
}

async function peakRssOf(pid: number): Promise<number | undefined> {
  return peakInStatus(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined));
}

/** The peak of a Node process that loads nothing, measured as the daemon's is. */
async function baselinePeakMB(): Promise<number | undefined> {
  const { stdout } = await run(process.execPath, [
    '-e',
    "process.stdout.write(require('node:fs').readFileSync('/proc/self/status', 'utf8'))",
  ]).catch(() => ({ stdout: undefined }));
  return peakInStatus(stdout);
}

async function measure(mode: Mode, rules: number, dir: string): Promise<DaemonPoint> {
  const account = await buildSyntheticAccount({
    owner: OWNER,
    seedManaged: mode !== 'creates',
    overlappingCidrs: true,
    size: rulesOnly(rules),
  });
  const seed =
    mode === 'drift'
      ? {
          ...account.seed,
          ip_policy_rules: (account.seed.ip_policy_rules ?? []).map(
            (rule, index): SeedEntry =>
              index % DRIFT_EVERY === 0 ? { ...rule, description: `changed by hand ${index}` } : rule,
          ),
        }
      : account.seed;
  const work = join(dir, `${mode}-${rules}`);
  await writeManifests(account, join(work, 'manifests'));
  const emulator = await startSeededEmulator(seed);
  let daemon: Awaited<ReturnType<typeof startWatch>> | undefined;
  try {
    // As the image runs it (info logs), but observe: the first reconcile plans and applies nothing,
    // so every mode measures the same steps. The emulator enforces no budget; the daemon is told none binds.
    daemon = await startWatch(emulator, work, [
      '--mode',
      'observe',
      '--log-level',
      'info',
      '--rate-limit',
      '1000000/1s',
    ]);
    const running = daemon;
    const pid = running.child.pid as number;
    const done = await until(
      running,
      (current) => current.last_reconcile != null,
      300_000,
      'first reconcile',
    );
    const peakRssMB = await peakRssOf(pid);
    running.child.kill('SIGHUP');
    const reloaded = await until(
      running,
      (current) => current.last_reconcile?.started_at !== done.last_reconcile?.started_at,
      300_000,
      'reload',
    );
    const summary = done.last_plan?.summary;
    return {
      mode,
      rules,
      peakRssMB,
      peakAfterReloadMB: await peakRssOf(pid),
      result: done.last_reconcile?.result ?? 'none',
      reconcileMs: done.last_reconcile?.duration_ms ?? Number.NaN,
      reloadMs: reloaded.last_reconcile?.duration_ms ?? Number.NaN,
      changes: summary === undefined ? 0 : summary.create + summary.update + summary.delete,
    };
  } finally {
    await stopWatch(daemon);
    await emulator.close();
    await rm(work, { recursive: true, force: true });
  }
}

function figuresOf(points: readonly DaemonPoint[], baselineMB: number | undefined): BenchFigure[] {
  return points.flatMap((point) => {
    const label = `${point.mode}, ${point.rules.toLocaleString('en-US')} rules: daemon peak RSS`;
    const first = `first reconcile ${Math.round(point.reconcileMs)} ms, ${point.result}, ${point.changes.toLocaleString('en-US')} changes`;
    const reload = `reload (SIGHUP, as each resync) ${Math.round(point.reloadMs)} ms`;
    const perEntry = (peakMB: number): string =>
      baselineMB === undefined
        ? 'node -e 0 not measured'
        : `${round(((peakMB - baselineMB) * 1024) / point.rules, 2)} KB per entry above the ${Math.round(baselineMB)} MB of node -e 0`;
    if (point.peakRssMB === undefined || point.peakAfterReloadMB === undefined)
      return [figure(SECTION, label, 'not measured (no /proc)', '', first)];
    return [
      figure(
        SECTION,
        `${label}, first reconcile`,
        Math.round(point.peakRssMB),
        'MB',
        `${first}; ${perEntry(point.peakRssMB)}`,
      ),
      figure(
        SECTION,
        `${label}, then a reload`,
        Math.round(point.peakAfterReloadMB),
        'MB',
        `${reload}; ${perEntry(point.peakAfterReloadMB)}: what the memory limit must hold`,
      ),
    ];
  });
}

/**
 * `daemon-memory`: the peak RSS of `edgesync watch` itself (the process the
 * container's memory limit holds) through its first reconcile, in observe
 * mode, of an account in sync, one with drift, and one to create, and
 * through a reload after it (the resync's load of every file). The
 * daemon keeps more than a one-shot plan (the live-state cache, each file's
 * entries), so docs/operations.md sizes the limits from these. Run it on the
 * image's Node: `BENCH_ONLY=daemon-memory NODE26 dist/bench/run.js`.
 */
export async function runDaemonMemoryBench(quick: boolean): Promise<BenchSection> {
  const sizes = quick ? [1000, 5000] : [10_000, 50_000, 100_000];
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-daemon-memory-'));
  const points: DaemonPoint[] = [];
  try {
    for (const rules of sizes) {
      for (const mode of ['no-ops', 'drift', 'creates'] as const) {
        process.stderr.write(`bench: daemon-memory ${mode} ${rules}…\n`);
        points.push(await measure(mode, rules, dir));
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const baselineMB = await baselinePeakMB();
  return { section: SECTION, figures: figuresOf(points, baselineMB), details: { baselineMB, points } };
}
