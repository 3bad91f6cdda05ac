import { defineConfig } from 'vitest/config';

/** `npm run test:reliability`: the slow suite of faults, crashes, hostile input, secrets and load. */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/build-once.ts'],
  },
});
