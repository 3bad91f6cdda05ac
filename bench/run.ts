import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { runApiCostBench } from './api-cost-bench.js';
import { type BenchSection, renderTable } from './bench-figure.js';
import { runCliPlanBench } from './cli-plan-bench.js';
import { runCliStartBench } from './cli-start-bench.js';
import { runDaemonInventoryBench } from './daemon-inventory-bench.js';
import { runDaemonLatencyBench } from './daemon-latency-bench.js';
import { runDaemonMemoryBench } from './daemon-memory-bench.js';
import { runDaemonNotifyBench } from './daemon-notify-bench.js';
import { runPlanFootprintBench } from './plan-footprint-bench.js';
import { REPO_ROOT } from './repo-root.js';
import { runSavedPlanBench } from './saved-plan-bench.js';
import { runScaleBench } from './scale-bench.js';
import { runThroughputBench } from './throughput-bench.js';

type BenchRunner = (quick: boolean) => Promise<BenchSection>;

const RUNNERS: Readonly<Record<string, BenchRunner>> = {
  'api-cost': runApiCostBench,
  throughput: runThroughputBench,
  'cpu-memory': runPlanFootprintBench,
  daemon: runDaemonLatencyBench,
  'daemon-notify': runDaemonNotifyBench,
  'daemon-memory': runDaemonMemoryBench,
  'daemon-inventory': runDaemonInventoryBench,
  'cli-start': runCliStartBench,
  'cli-plan': runCliPlanBench,
  scale: runScaleBench,
  'saved-plan': runSavedPlanBench,
};

/**
 * `npm run bench`: every section in turn, one table on stdout and
 * bench/results.json. `BENCH_QUICK=1` shrinks every size for a smoke run;
 * `BENCH_ONLY=api-cost,cli-start` runs some sections only.
 */
async function main(): Promise<void> {
  const quick = process.env.BENCH_QUICK === '1';
  const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
  const sections: BenchSection[] = [];
  for (const [name, run] of Object.entries(RUNNERS)) {
    if (only !== undefined && !only.includes(name)) continue;
    const startedAt = performance.now();
    process.stderr.write(`bench: ${name}${quick ? ' (quick)' : ''}…\n`);
    try {
      sections.push(await run(quick));
    } catch (error) {
      // One broken section must not lose the figures of the others.
      const message = error instanceof Error ? error.message : String(error);
      sections.push({
        section: name,
        figures: [{ section: name, name: 'failed', value: message, unit: '' }],
      });
    }
    process.stderr.write(`bench: ${name} took ${Math.round((performance.now() - startedAt) / 1000)} s\n`);
  }
  const figures = sections.flatMap((section) => section.figures);
  process.stdout.write(`${renderTable(figures)}\n`);
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryMB: Math.round(totalmem() / 2 ** 20),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  const results = { date: new Date().toISOString(), quick, machine, sections };
  await writeFile(join(REPO_ROOT, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
}

await main();
