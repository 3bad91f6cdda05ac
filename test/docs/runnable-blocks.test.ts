import { describe, expect, it } from 'vitest';
import { holdsLine, runnableSteps } from '../support/runnable-blocks.js';

const DOC = [
  '```console',
  '# not run: why',
  'not runnable',
  '```',
  '',
  '```sh',
  '# prose first',
  'edgesync validate x   # prose after the command',
  '# 1 file valid (…)',
  'edgesync plan \\',
  '  --detailed-exitcode x',
  '# exit 2',
  '',
  '# prose after a blank line',
  'kill %1',
  '```',
].join('\n');

describe('runnableSteps', () => {
  it('takes only `sh` blocks, with their expected lines, exit codes and places; prose is left out', () => {
    expect(runnableSteps(DOC, 'doc.md')).toEqual([
      {
        command: 'edgesync validate x',
        expectedLines: ['1 file valid (…)'],
        exitCode: 0,
        location: 'doc.md:8',
      },
      {
        command: 'edgesync plan \\\n  --detailed-exitcode x',
        expectedLines: [],
        exitCode: 2,
        location: 'doc.md:10',
      },
      { command: 'kill %1', expectedLines: [], exitCode: 0, location: 'doc.md:15' },
    ]);
  });

  it('matches a documented line against a whole output line, … standing for any text', () => {
    expect(holdsLine('read x\n1 file valid (2 entries)\n', '1 file valid (…)')).toBe(true);
    expect(holdsLine('2 files valid (2 entries)\n', '1 file valid (…)')).toBe(false);
    expect(holdsLine('a (b) [c] $d\n', 'a (b) [c] $d')).toBe(true);
  });
});
