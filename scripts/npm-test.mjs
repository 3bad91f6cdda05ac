#!/usr/bin/env node
// `npm test`: the type check of every file, Biome, and the unit suite, ending
// with the time each step took. Plain JavaScript so that it runs before
// anything is compiled.
//
// Three lanes run at the same time, because the suite needs only dist/src (and
// the bundle made from it) and not the type check: on a 2-core machine the
// suite waits on processes and timers a good part of its time, and the type
// check fills those gaps instead of adding its whole time in front.
// - typecheck: `tsc --noEmit` over src, test, bench and scripts, incremental
//   (dist/typecheck.tsbuildinfo), so a run after a small edit checks little;
// - biome: lint and format;
// - build, bundle, vitest: dist/src compiled without a type check (`--noCheck`:
//   the same JavaScript, since every import says whether it is a type), then the
//   CLI bundle, then the suite.
// The first lane to fail stops the others, and npm test fails.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const bin = (name) => `node_modules/.bin/${name}`;

/** @typedef {[name: string, command: string, args: string[], quiet: boolean]} Step */

/** @type {Step[][]} */
const lanes = [
  [
    [
      'typecheck',
      bin('tsc'),
      ['-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', 'dist/typecheck.tsbuildinfo'],
      true,
    ],
  ],
  [['biome', bin('biome'), ['check', '.'], true]],
  [
    ['build', bin('tsc'), ['-p', 'tsconfig.emit.json', '--noCheck'], true],
    // The second half of `npm run build`: the `edgesync` binary the process tests run.
    ['bundle', process.execPath, ['scripts/bundle-cli.mjs'], true],
    ['vitest', bin('vitest'), ['run', ...process.argv.slice(2)], false],
  ],
];

const started = performance.now();
/** @type {Map<string, string>} */
const timings = new Map();
/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();
let failed = false;

/**
 * Runs one step; a quiet step's output is held and printed whole when it ends,
 * so that it does not cut through vitest's.
 * @param {Step} step
 * @returns {Promise<boolean>}
 */
function runStep([name, command, args, quiet]) {
  const stepStarted = performance.now();
  const child = spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  running.add(child);
  /** @type {Buffer[]} */
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  child.stderr?.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      const seconds = ((performance.now() - stepStarted) / 1000).toFixed(1);
      const stopped = signal !== null && failed;
      timings.set(name, stopped ? `${name} stopped` : `${name} ${seconds} s`);
      const ok = code === 0;
      if (!stopped && (!ok || output.length > 0)) {
        process.stdout.write(`\n== ${name}${ok ? '' : ' FAILED'}\n`);
        process.stdout.write(Buffer.concat(output));
      }
      resolve(ok);
    });
  });
}

/** @param {Step[]} steps */
async function runLane(steps) {
  for (const step of steps) {
    if (failed) return;
    if (!(await runStep(step))) {
      if (!failed) {
        failed = true;
        for (const child of running) child.kill('SIGTERM');
      }
      return;
    }
  }
}

await Promise.all(lanes.map(runLane));

const order = lanes.flat().map(([name]) => name);
const total = ((performance.now() - started) / 1000).toFixed(1);
const said = order.filter((name) => timings.has(name)).map((name) => timings.get(name));
process.stdout.write(`\nnpm test: ${failed ? 'FAILED' : 'passed'} in ${total} s (${said.join(', ')})\n`);
process.exitCode = failed ? 1 : 0;
