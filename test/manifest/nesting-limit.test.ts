import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

/**
 * Nesting is refused at the first collection deeper than 64 levels, with
 * its file:line:column, however deep the file goes: 100,000 levels used to
 * overflow the Composer's call stack ("Maximum call stack size exceeded")
 * or fill the parsing worker's heap ("parsing needs more than 96 MB").
 */
const SHAPES: readonly {
  readonly shape: string;
  readonly text: (levels: number) => string;
  /** Levels of the runaway file. @default 100,000 */
  readonly runaway?: number;
}[] = [
  { shape: 'flow sequences', text: (levels) => `x: ${'['.repeat(levels)}${']'.repeat(levels)}\n` },
  { shape: 'flow mappings', text: (levels) => `x: ${'{a: '.repeat(levels)}1${'}'.repeat(levels)}\n` },
  { shape: 'compact block sequences', text: (levels) => `x:\n${'- '.repeat(levels)}a\n` },
  {
    shape: 'indented block sequences',
    text: (levels) =>
      `x:\n${Array.from({ length: levels }, (_, level) => `${' '.repeat(level)}-\n`).join('')}`,
    // A line per level, each indented one more: 3,000 levels are 4.5 MB, within the 5 MB a file may hold.
    runaway: 3_000,
  },
  {
    shape: 'flow sequences in a file with a tab (composed, not walked from tokens)',
    text: (levels) => `x: ${'['.repeat(levels)}${']'.repeat(levels)}\n#\ttab\n`,
  },
];

interface Diagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: string;
  readonly message: string;
}

describe('validate refuses runaway nesting with a location (as a process)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-nesting-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function validate(
    name: string,
    text: string,
  ): Promise<{ code: number | null; errors: Diagnostic[] }> {
    await writeFile(join(dir, name), `version: 1\n${text}`);
    const run = await runEdgesyncProcess(['validate', '--format', 'json', name], {
      cwd: dir,
      limitMs: 60_000,
    });
    return { code: run.code, errors: JSON.parse(run.stdout) as Diagnostic[] };
  }

  it.each(SHAPES)(
    '$shape: a runaway nesting is refused where 100 levels are',
    async ({ text, runaway: levels }) => {
      const hundred = await validate('hundred.yaml', text(100));
      const runaway = await validate('runaway.yaml', text(levels ?? 100_000));

      expect(runaway.code).toBe(1);
      expect(runaway.errors).toEqual([
        {
          file: 'runaway.yaml',
          line: hundred.errors[0]?.line,
          column: hundred.errors[0]?.column,
          path: '',
          code: 'too_deep',
          message: 'nested more than 64 levels deep',
        },
      ]);
      expect(hundred.errors.map((error) => error.code)).toEqual(['too_deep']);
    },
    120_000,
  );

  it('refuses 100,000 nested explicit keys, which the walk of values never enters, at a line of the file', async () => {
    const runaway = await validate('keys.yaml', `x:\n${'? '.repeat(100_000)}a\n`);

    expect(runaway.code).toBe(1);
    expect(runaway.errors).toEqual([
      expect.objectContaining({ file: 'keys.yaml', line: 3, code: 'too_deep' }),
    ]);
  }, 60_000);
});
