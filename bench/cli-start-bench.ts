import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type BenchSection, figure, median, round } from './bench-figure.js';
import { CLI_PATH, REPO_ROOT } from './repo-root.js';

const SECTION = 'cli-start';
const run = promisify(execFile);

async function timeOne(args: readonly string[]): Promise<number> {
  const startedAt = performance.now();
  await run(process.execPath, [...args], { cwd: REPO_ROOT });
  return performance.now() - startedAt;
}

export async function runCliStartBench(quick: boolean): Promise<BenchSection> {
  const runs = quick ? 3 : 15;
  const version: number[] = [];
  const validate: number[] = [];
  const baseline: number[] = [];
  // Interleaved, so that a machine busy with something else slows all three alike and the ratios hold.
  for (let index = 0; index < runs; index += 1) {
    baseline.push(await timeOne(['-e', '0']));
    version.push(await timeOne([CLI_PATH, '--version']));
    validate.push(await timeOne([CLI_PATH, 'validate', 'examples/manifests']));
  }
  const nodeMs = median(baseline);
  return {
    section: SECTION,
    figures: [
      figure(
        SECTION,
        `node -e 0, median of ${runs}`,
        Math.round(nodeMs),
        'ms',
        // The ratios differ by Node major (Node 26 starts about twice as fast): say which one ran.
        `the floor of any Node CLI; Node ${process.version} (run the bench with another node to measure it)`,
      ),
      figure(
        SECTION,
        'edgesync --version / node -e 0',
        round(median(version) / nodeMs, 2),
        'x',
        'goal ≤ 1.6x; medians of the same run, interleaved',
      ),
      figure(
        SECTION,
        'edgesync validate examples/manifests / node -e 0',
        round(median(validate) / nodeMs, 2),
        'x',
        'goal ≤ 2.5x',
      ),
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
