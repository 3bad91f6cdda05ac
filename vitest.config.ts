import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './test/support/slowest-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['dist/**', 'node_modules/**', 'test/reliability/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Each fork keeps the modules it imported for the files it runs next, instead of a fresh fork
    // importing the emulator, the client and the planner again for each of ~180 files: most of what a
    // file cost before its tests ran (test/plan, test/kinds and test/access, 35 files: 69 s of CPU
    // isolated, 40 s not; `/usr/bin/time npx vitest run [--no-isolate] DIRS`). The machine's 2 cores were
    // busy throughout, so CPU is time. Tests restore what they change (environment variables, timers)
    // and no test relies on a module's state being fresh.
    isolate: false,
    // Most test files spend their time waiting: on CLI processes, on the
    // emulator's latency, on timers. vitest's default of one worker per core
    // but one ran them one at a time on a 2-core machine (test/apply: 88 s
    // with one worker, 42 s with four, under the same load). Four at least.
    maxWorkers: Math.max(4, availableParallelism()),
    // A fresh clone has no durations cached: start the known slow files first.
    sequence: { sequencer: SlowestFirstSequencer },
    globalSetup: ['test/support/build-once.ts'],
  },
});
