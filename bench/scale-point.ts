import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure } from './scale-bench.js';

/**
 * One point of the `scale` section, for before/after comparisons of a
 * change without the whole section's minutes of CPU:
 *   node dist/bench/scale-point.js [no-ops|creates] [entries] [repetitions]
 * Prints one JSON line per repetition, with the load average: peak RSS
 * moves by ±20 MB from run to run with when V8 collects, so compare several.
 */
async function main(): Promise<void> {
  const [modeArg = 'no-ops', entriesArg = '100000', repetitionsArg = '1'] = process.argv.slice(2);
  if (modeArg !== 'no-ops' && modeArg !== 'creates')
    throw new Error(`mode must be no-ops or creates, not ${modeArg}`);
  const entries = Number(entriesArg);
  const repetitions = Number(repetitionsArg);
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-scale-point-'));
  try {
    for (let repetition = 0; repetition < repetitions; repetition += 1) {
      const point = await measure(modeArg, entries, dir, 300_000);
      const footprint = point.footprint;
      process.stdout.write(
        `${JSON.stringify({
          mode: modeArg,
          entries,
          ...(footprint === undefined
            ? { timedOut: true }
            : {
                peakRssMB: Math.round(footprint.maxRssMB),
                afterLoadMB: Math.round(footprint.maxRssAfterLoadMB),
                afterReadMB: Math.round(footprint.maxRssAfterReadMB),
                afterPlanMB: Math.round(footprint.maxRssAfterPlanMB),
                loadMs: Math.round(footprint.loadMs),
                readLiveMs: Math.round(footprint.readLiveMs),
                planMs: Math.round(footprint.planMs),
                outputMs: Math.round(footprint.outputMs),
                actions: footprint.actions,
                floorMs: Math.round(footprint.yamlParseMs + footprint.jsonParseMs),
                warmFloorMs: Math.round(footprint.yamlParseWarmMs + footprint.jsonParseWarmMs),
              }),
          loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
        })}\n`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
