import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The test files outside test/reliability/ that size a fast-check property
 * through test/support/property-runs.ts, relative to `root`, sorted:
 * `npm run test:reliability` runs them again at the large size.
 */
export function propertyTestFiles(root: string): string[] {
  const tests = join(root, 'test');
  return readdirSync(tests, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !relative(tests, file).startsWith('reliability'))
    .filter((file) => readFileSync(file, 'utf8').includes('/support/property-runs.js'))
    .map((file) => relative(root, file))
    .sort();
}
