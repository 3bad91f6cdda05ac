import { describe, expect, it } from 'vitest';
import { runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';

/** The lines a run wrote on stderr. */
const linesOf = (text: string): string[] => text.split('\n').filter((line) => line !== '');

describe('a usage error is what was wrong, the suggestion, and where the help is', () => {
  it.each([
    [['aply'], "edgesync: unknown command 'aply'; did you mean apply?", 'see `edgesync --help`'],
    [
      ['apply', '--formt', 'json'],
      "edgesync: unknown option '--formt'; did you mean --format?",
      'see `edgesync apply --help`',
    ],
    [['watch', '--bogus'], "edgesync: unknown option '--bogus'", 'see `edgesync watch --help`'],
    [
      ['plan', '--log-format', 'fancy'],
      'edgesync: --log-format: expected one of text, json, pretty (found "fancy")',
      'see `edgesync plan --help`',
    ],
    [
      ['reconcile', 'extra'],
      "edgesync: too many arguments for 'reconcile'. Expected 0 arguments but got 1.",
      'see `edgesync reconcile --help`',
    ],
    [
      ['apply', '--concurrency', 'many'],
      'edgesync: --concurrency: expected a whole number of at least 1 (found "many")',
      'see `edgesync apply --help`',
    ],
  ])('edgesync %j: two lines, no help text', async (args, wrong, pointer) => {
    const run = await runEdgesyncInProcess(args);

    expect(run.code).toBe(1);
    expect(linesOf(run.stderr)).toEqual([wrong, pointer]);
    expect(run.stdout).toBe('');
  });

  it('the help is still there when asked for', async () => {
    const run = await runEdgesyncInProcess(['apply', '--help']);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: edgesync apply [options] [paths...]');
    expect(run.stdout).toContain('--format <format>');
  });

  it('as a process: exit 1, the two lines on stderr, nothing on stdout', async () => {
    const run = await runEdgesyncProcess(['aply'], { limitMs: 30_000 });

    expect(run.code).toBe(1);
    expect(linesOf(run.stderr)).toEqual([
      "edgesync: unknown command 'aply'; did you mean apply?",
      'see `edgesync --help`',
    ]);
    expect(run.stdout).toBe('');
  });
});
