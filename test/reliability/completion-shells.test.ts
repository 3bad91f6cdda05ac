import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';

/**
 * `edgesync completion bash|zsh|fish`, loaded the way each shell loads a
 * completion and asked what it completes: a command, a flag, a flag's
 * choice value, and a path. bash through COMP_WORDS and the function the
 * script registers, zsh through compinit finding `_edgesync` in $fpath on a
 * pseudo-terminal, fish through `complete -C`. zsh and fish come from
 * Debian's packages (.ci/run installs them); missing, these tests fail.
 */

const ZSH_COMPLETE = join(import.meta.dirname, 'completion', 'zsh-complete.zsh');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgesync-completion-'));
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    const run = await runEdgesyncInProcess(['completion', shell]);
    expect(run.code, run.stderr).toBe(0);
    // zsh's compinit finds a completion by its file name in $fpath.
    const file = shell === 'zsh' ? join(dir, 'fpath', '_edgesync') : join(dir, `edgesync.${shell}`);
    await mkdir(join(dir, 'fpath'), { recursive: true });
    await writeFile(file, run.stdout);
  }
  await writeFile(join(dir, 'manifest-one.yaml'), 'version: 1\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function shell(command: string, args: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      [...args],
      { cwd: dir, timeout: 60_000, env: { PATH: process.env.PATH ?? '', HOME: dir } },
      (error, stdout, stderr) => {
        if (error !== null) reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stderr}`));
        else resolve(stdout.split('\n').filter((line) => line !== ''));
      },
    );
  });
}

/** What bash completes for the words typed, the last one being completed. */
function bash(...words: string[]): Promise<string[]> {
  const quoted = words.map((word) => `'${word}'`).join(' ');
  return shell('bash', [
    '-c',
    `source ${join(dir, 'edgesync.bash')}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _edgesync; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ]);
}

function zsh(line: string): Promise<string[]> {
  return shell('zsh', [ZSH_COMPLETE, join(dir, 'fpath'), line]);
}

/** What fish offers, the words alone (fish adds a tab and the description). */
async function fish(line: string): Promise<string[]> {
  const lines = await shell('fish', ['-c', `source ${join(dir, 'edgesync.fish')}; complete -C '${line}'`]);
  return lines.map((candidate) => candidate.split('\t')[0] ?? '');
}

const CASES = [
  ['a command', ['edgesync', 'ap'], ['apply']],
  ['a flag', ['edgesync', 'apply', '--for'], ['--format', '--force']],
  ['a choice value', ['edgesync', 'apply', '--format', ''], ['text', 'json']],
  ['a choice value of another command', ['edgesync', 'plan', '--log-format', ''], ['text', 'json', 'pretty']],
  ['a path operand', ['edgesync', 'validate', 'manifest-o'], ['manifest-one.yaml']],
] as const;

describe('shell completion', () => {
  it.each(CASES)('bash completes %s', async (_, words, expected) => {
    expect((await bash(...words)).sort()).toEqual([...expected].sort());
  });

  it.each(CASES)('zsh (compinit) completes %s', async (_, words, expected) => {
    expect((await zsh(words.join(' '))).sort()).toEqual(expect.arrayContaining([...expected]));
  });

  it.each(CASES)('fish completes %s', async (_, words, expected) => {
    expect((await fish(words.join(' '))).sort()).toEqual(expect.arrayContaining([...expected]));
  });

  it('offers nothing for a flag whose value is free text', async () => {
    expect(await bash('edgesync', 'apply', '--concurrency', '')).toEqual([]);
    expect(await fish('edgesync apply --concurrency ')).toEqual([]);
  });
});
