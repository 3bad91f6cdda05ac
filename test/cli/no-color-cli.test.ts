import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finished, runEdgesyncProcess, spawnEdgesync } from '../support/edgesync-cli.js';

/** edgesync as a process in `cwd`, with PATH alone. */
const run = (args: readonly string[], cwd: string) => runEdgesyncProcess(args, { cwd });

/** The commands `edgesync --help` lists. */
function commandsOf(help: string): string[] {
  const section = help.split('Commands:\n')[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z]+)\b/gm)].map((match) => match[1] as string);
}

describe('--no-color is accepted by every command, as a process', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-no-color-'));
    await writeFile(join(dir, 'empty.yaml'), 'version: 1\n');
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('every command listed by --help offers --no-color in its own --help', async () => {
    const help = await run(['--help'], dir);
    const commands = commandsOf(help.stdout).filter((command) => command !== 'help');
    const offered = await Promise.all(
      commands.map(async (command) => [command, await run([command, '--help'], dir)] as const),
    );

    expect(commands).toEqual(
      expect.arrayContaining(['validate', 'plan', 'apply', 'show', 'emulator', 'export', 'watch']),
    );
    for (const [command, commandHelp] of offered) {
      expect(commandHelp.stdout, command).toContain('--no-color');
    }
  });

  it('validate and export take --no-color and print no escape sequence', async () => {
    const validate = await run(['validate', '--no-color', 'empty.yaml'], dir);
    const exported = await run(['export', '--no-color', '--emulator', '--kinds', 'ip_policy_rules'], dir);

    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toBe('1 file valid (0 entries)\n');
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('version: 1');
    expect(validate.stdout + validate.stderr + exported.stdout + exported.stderr).not.toContain('\u001b[');
  });

  it('emulator takes --no-color, serves, and stops on SIGTERM', async () => {
    const child = spawnEdgesync(['emulator', '--no-color', '--port', '0'], { cwd: dir });
    const output = finished(child);
    while (!output.output().stdout.includes('\n')) await once(child.stdout as Readable, 'data');
    const stdout = output.output().stdout;
    const url = stdout.split('\n')[0] as string;
    const answer = await fetch(`${url}/ip_policies`);
    child.kill('SIGTERM');
    const [code] = await once(child, 'close');

    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(answer.status).toBe(401);
    expect(code).toBe(0);
  });
});
