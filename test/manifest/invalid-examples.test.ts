import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { MANIFEST_ERROR_CODES, ManifestError } from '../../src/manifest/manifest-error.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';

const INVALID_ROOT = 'examples/invalid';
const cases = readdirSync(INVALID_ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('examples/invalid', () => {
  it.each(cases)('%s reports exactly the lines of expected.txt', async (name) => {
    const directory = join(INVALID_ROOT, name);
    const expected = readFileSync(join(directory, 'expected.txt'), 'utf8').trimEnd().split('\n');

    const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: directory, env: {} });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.format())).toEqual(expected);
    for (const error of result.errors) {
      expect(error).toBeInstanceOf(ManifestError);
      expect(MANIFEST_ERROR_CODES).toContain(error.code);
    }
  });

  it('covers every error code a manifest on disk can cause', async () => {
    const seen = new Set<string>();

    for (const name of cases) {
      const result = await loadDesiredState(['.'], {
        ...BUILT_IN_LOAD,
        cwd: join(INVALID_ROOT, name),
        env: {},
      });
      if (!result.ok) for (const error of result.errors) seen.add(error.code);
    }

    // file_not_found and file_too_large need a missing path and a 6 MB file: tested in loader-limits.test.ts;
    // not_regular_file and too_many_directories a FIFO or device and 10,000 directories: manifest-tree.test.ts.
    const elsewhere = new Set([
      'file_not_found',
      'file_too_large',
      'not_regular_file',
      'too_many_directories',
    ]);
    expect(MANIFEST_ERROR_CODES.filter((code) => !seen.has(code) && !elsewhere.has(code))).toEqual([]);
  });
});
