import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type BenchSection, figure, median } from './bench-figure.js';
import { CLI_PATH, REPO_ROOT } from './repo-root.js';

const SECTION = 'cli-start';
const run = promisify(execFile);

async function timeRuns(args: readonly string[], runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const startedAt = performance.now();
    await run(process.execPath, [CLI_PATH, ...args], { cwd: REPO_ROOT });
    times.push(performance.now() - startedAt);
  }
  return times;
}

export async function runCliStartBench(quick: boolean): Promise<BenchSection> {
  const runs = quick ? 3 : 15;
  const version = await timeRuns(['--version'], runs);
  const validate = await timeRuns(['validate', 'examples/manifests'], runs);
  const baseline = await (async () => {
    const times: number[] = [];
    for (let index = 0; index < runs; index += 1) {
      const startedAt = performance.now();
      await run(process.execPath, ['-e', '0']);
      times.push(performance.now() - startedAt);
    }
    return times;
  })();
  return {
    section: SECTION,
    figures: [
      figure(
        SECTION,
        `edgesync --version, median of ${runs}`,
        Math.round(median(version)),
        'ms',
        `node -e 0 takes ${Math.round(median(baseline))} ms`,
      ),
      figure(
        SECTION,
        `edgesync validate examples/manifests, median of ${runs}`,
        Math.round(median(validate)),
        'ms',
      ),
    ],
    details: { versionMs: version, validateMs: validate, nodeBaselineMs: baseline },
  };
}
