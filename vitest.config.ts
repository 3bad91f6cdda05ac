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
