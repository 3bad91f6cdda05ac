import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { PROPERTY_SIZE_VARIABLE } from './test/support/property-runs.js';
import { propertyTestFiles } from './test/support/property-test-files.js';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * `npm run test:reliability`: the slow suite of faults, crashes, hostile input, secrets and load,
 * the tests that need a system tool, and every fast-check property of `npm test` again at the
 * large size (test/support/property-runs.ts).
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts', ...propertyTestFiles(ROOT)],
    env: { [PROPERTY_SIZE_VARIABLE]: process.env[PROPERTY_SIZE_VARIABLE] ?? 'large' },
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/build-once.ts'],
  },
});
