#!/usr/bin/env node
// `npm test`: build, lint, unit suite, in that order, stopping at the first
// failure, then the time each step took. Plain JavaScript so that it runs
// before anything is compiled.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const bin = (name) => `node_modules/.bin/${name}`;
const steps = [
  ['build', bin('tsc'), ['-p', 'tsconfig.json']],
  // The second half of `npm run build`: the `edgesync` binary the process tests run.
  ['bundle', process.execPath, ['scripts/bundle-cli.mjs']],
  ['biome', bin('biome'), ['check', '.']],
  ['vitest', bin('vitest'), ['run', ...process.argv.slice(2)]],
];

const started = performance.now();
const timings = [];
let status = 0;
for (const [name, command, args] of steps) {
  const stepStarted = performance.now();
  const result = spawnSync(command, args, { stdio: 'inherit' });
  timings.push(`${name} ${((performance.now() - stepStarted) / 1000).toFixed(1)} s`);
  status = result.status ?? 1;
  if (status !== 0) break;
}
const total = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(
  `\nnpm test: ${status === 0 ? 'passed' : 'FAILED'} in ${total} s (${timings.join(', ')})\n`,
);
process.exitCode = status;
