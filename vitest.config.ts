import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

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
    globalSetup: ['test/support/build-once.ts'],
  },
});
