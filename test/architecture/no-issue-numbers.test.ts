import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

/** `issue 18`, `Issue 14's`, `issue #3`, `issue 16.8`: what a reader without the tracker cannot follow. */
const CITATION = /\bissues? ?#?\d+/i;

describe('comments say why in their own words', () => {
  it('no file of src/ cites an issue number', () => {
    const citing = readdirSync(SRC, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .flatMap((path) =>
        readFileSync(path, 'utf8')
          .split('\n')
          .flatMap((line, index) =>
            CITATION.test(line) ? [`${relative(SRC, path)}:${index + 1}: ${line.trim()}`] : [],
          ),
      );
    expect(citing).toEqual([]);
  });
});
