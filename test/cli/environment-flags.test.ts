import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEdgesyncInProcess, spawnEdgesync } from '../support/edgesync-cli.js';

const COMMANDS = ['apply', 'validate', 'plan', 'show', 'watch', 'emulator', 'export'];
const RULES = `version: 1
reserved_addrs:
  office:
    description: office
    region: eu
`;

/**
 * edgesync in this process in `cwd` with exactly `env`: commander reads the flags' variables from
 * process.env all the same, and what is promised here is how a value is read and what is said of it.
 */
const runHere = (args: readonly string[], cwd: string, env: Record<string, string> = {}) =>
  runEdgesyncInProcess(args, { cwd, env });

/** Flags in the Options section of a command's help, without --help. */
function optionCount(help: string): number {
  const options = help.slice(help.indexOf('Options:'));
  return options.split('\n').filter((line) => /^ {2}(-\w, )?--(?!help)/.test(line)).length;
}

describe('every flag can come from the environment as EDGESYNC_<FLAG>', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-env-flags-'));
    await writeFile(join(dir, 'policies.yaml'), RULES);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(COMMANDS)('%s --help names a variable for every flag', async (command) => {
    const { stdout } = await runHere([command, '--help'], dir);

    expect(optionCount(stdout)).toBeGreaterThan(0);
    expect(stdout.match(/env:/g)?.length).toBe(optionCount(stdout));
  });

  it('plan takes --owner and --format from the environment; the command line wins', async () => {
    const env = { EDGESYNC_OWNER: 'team-env', EDGESYNC_FORMAT: 'json', EDGESYNC_EMULATOR: 'true' };

    const fromEnv = await runHere(['plan', 'policies.yaml'], dir, env);
    const fromFlag = await runHere(['plan', '--owner', 'team-flag', 'policies.yaml'], dir, env);

    expect(JSON.parse(fromEnv.stdout).owner).toBe('team-env');
    expect(JSON.parse(fromFlag.stdout).owner).toBe('team-flag');
  });

  it('a switch reads its value: EDGESYNC_YES=false does not approve, =1 does, anything else is refused by name', async () => {
    const emulator = { EDGESYNC_EMULATOR: '1' };

    const no = await runHere(['apply', 'policies.yaml'], dir, { ...emulator, EDGESYNC_YES: 'false' });
    const yes = await runHere(['apply', 'policies.yaml'], dir, { ...emulator, EDGESYNC_YES: '1' });
    const typo = await runHere(['apply', 'policies.yaml'], dir, { ...emulator, EDGESYNC_YES: 'yse' });

    expect(no.stderr).toContain('refusing to apply without confirmation');
    expect(no.code).toBe(1);
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain('1 created');
    expect(typo.stderr).toContain('EDGESYNC_YES: expected true or false, 1 or 0 (found "yse")');
    expect(typo.code).toBe(1);
  });

  it('a bad value names the variable it came from', async () => {
    const { code, stderr } = await runHere(['plan', 'policies.yaml'], dir, {
      EDGESYNC_EMULATOR: '1',
      EDGESYNC_LOG_FORMAT: 'fancy',
    });

    expect(code).toBe(1);
    expect(stderr).toContain(
      'edgesync: EDGESYNC_LOG_FORMAT: expected one of text, json, pretty (found "fancy")',
    );
  });

  it('EDGESYNC_CONCURRENCY=abc is reported as that variable, not as --concurrency, which was never typed', async () => {
    const fromEnv = await runHere(['apply', '--yes', 'policies.yaml'], dir, {
      EDGESYNC_EMULATOR: '1',
      EDGESYNC_CONCURRENCY: 'abc',
    });
    const fromFlag = await runHere(['apply', '--yes', '--concurrency', 'abc', 'policies.yaml'], dir, {
      EDGESYNC_EMULATOR: '1',
      EDGESYNC_CONCURRENCY: '4',
    });

    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toBe(
      'edgesync: EDGESYNC_CONCURRENCY: expected a whole number of at least 1 (found "abc")\nsee `edgesync apply --help`\n',
    );
    expect(fromFlag.code).toBe(1);
    expect(fromFlag.stderr).toBe(
      'edgesync: --concurrency: expected a whole number of at least 1 (found "abc")\nsee `edgesync apply --help`\n',
    );
  });

  it.each([
    ['plan', 'EDGESYNC_TIMEOUT', 'soon'],
    ['plan', 'EDGESYNC_RATE_LIMIT', 'lots'],
    ['plan', 'EDGESYNC_LOG_LEVEL', 'loud'],
    ['plan', 'EDGESYNC_MAX_DESTROY', 'some'],
    ['plan', 'EDGESYNC_OWNER', 'two words'],
    ['plan', 'EDGESYNC_TARGET', 'no_such_kind'],
    ['plan', 'EDGESYNC_EXCLUDE', 'no_such_kind'],
    ['plan', 'EDGESYNC_MAX_CHARS', '12'],
    ['plan', 'EDGESYNC_CA_EXPIRY_WARNING', 'a month'],
    ['apply', 'EDGESYNC_GRACE_TIMEOUT', 'later'],
    ['validate', 'EDGESYNC_CA_EXPIRY_WARNING', 'a month'],
    ['validate', 'EDGESYNC_OWNER', ' '],
    ['watch', 'EDGESYNC_LISTEN', 'everywhere'],
    ['watch', 'EDGESYNC_INTERVAL', '10ms'],
    ['watch', 'EDGESYNC_READ_SHARE', '200%'],
    ['watch', 'EDGESYNC_DEBOUNCE', 'quickly'],
    ['emulator', 'EDGESYNC_PORT', '99999'],
    ['emulator', 'EDGESYNC_FAULT_RATE', 'often'],
    ['export', 'EDGESYNC_KINDS', 'no_such_kind'],
    ['export', 'EDGESYNC_TCP_EDGE', 'not-an-id'],
  ])('%s: a bad %s is reported by that name', async (command, variable, value) => {
    const { code, stderr } = await runHere(
      [command, 'policies.yaml'].slice(0, command === 'emulator' || command === 'export' ? 1 : 2),
      dir,
      {
        EDGESYNC_EMULATOR: '1',
        [variable]: value,
      },
    );

    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^edgesync: ${variable}: `, 'm'));
    expect(stderr).not.toMatch(/edgesync: --/);
  });

  it('watch takes --listen, --interval and --owner from the environment', async () => {
    const child = spawnEdgesync(['watch', 'policies.yaml'], {
      cwd: dir,
      env: {
        EDGESYNC_EMULATOR: 'true',
        EDGESYNC_LISTEN: '127.0.0.1:0',
        EDGESYNC_INTERVAL: '1h',
        EDGESYNC_OWNER: 'team-daemon',
      },
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      void exited.then((code) => reject(new Error(`watch exited with ${code}`)));
    });
    const status = (await (await fetch(`${url}/status`)).json()) as { owner: string };
    child.kill('SIGTERM');
    const code = await exited;

    expect(url).not.toBe('http://127.0.0.1:9090');
    expect(status.owner).toBe('team-daemon');
    expect(code).toBe(0);
  });
});
