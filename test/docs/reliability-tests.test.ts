import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'reliability.md'), 'utf8');

/** The rows of the table whose header starts with `| boundary |` and has a column of tests. */
function boundaryRows(): string[][] {
  const rows: string[][] = [];
  let inTable = false;
  for (const line of DOC.split('\n')) {
    if (/^\| boundary \|.*\btests?\b/.test(line)) {
      inTable = true;
      continue;
    }
    if (!line.startsWith('|')) inTable = false;
    if (!inTable || /^\|[-| ]+\|$/.test(line)) continue;
    // A cell may hold `\|` (an escaped bar inside code).
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1));
  }
  return rows;
}

/**
 * docs/reliability.md says, for each boundary, which test attacks it: a row
 * that names a test file that is not there, or none at all, is a promise
 * with nothing behind it.
 */
describe('docs/reliability.md', () => {
  it('names only test files that exist', () => {
    const named = [...DOC.matchAll(/`(test\/[^`\s]+\.ts)`/g)].map((match) => match[1] as string);

    expect(named.length).toBeGreaterThan(50);
    expect([...new Set(named)].filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it('names a test file in the last cell of every row of its boundary tables', () => {
    const rows = boundaryRows();

    expect(rows.length).toBeGreaterThan(20);
    expect(
      rows.filter((cells) => !/`test\/[^`\s]+\.ts`/.test(cells.at(-1) ?? '')).map((cells) => cells[0]),
    ).toEqual([]);
  });
});

describe('docs/testing.md', () => {
  it('says which test holds each moved promise with files that exist', () => {
    const text = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8');
    const named = [...text.matchAll(/`((?:test|src|scripts)\/[^`\s]+\.(?:ts|mjs))`/g)].map(
      (match) => match[1] as string,
    );

    expect(named.length).toBeGreaterThan(15);
    expect([...new Set(named)].filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });
});
