import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fenced, main, readInputs } from '../../scripts/action/edgesync-action.mjs';
import { propertyRuns } from '../support/property-runs.js';

/**
 * The action's script on its own: its inputs checked once with a message
 * naming the input, and the fenced blocks that carry edgesync's error text
 * into a comment. The flows themselves run end to end in
 * test/pr-flow/pull-request-flow.test.ts and test/reliability/two-flows.test.ts.
 */
describe('scripts/action/edgesync-action.mjs', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-action-script-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it.each([
    [
      { INPUT_COMMAND: 'deploy' },
      'input command: expected one of validate, plan, apply, wait (found "deploy")',
    ],
    [
      { INPUT_COMMAND: 'plan', INPUT_FLOW: 'both' },
      'input flow: expected one of daemon-applies, ci-applies (found "both")',
    ],
    [{ INPUT_COMMAND: 'apply' }, 'command apply with flow daemon-applies: in that flow the daemon applies'],
  ])('refuses %j: %s', (env, message) => {
    expect(() => readInputs(env)).toThrow(message);
  });

  it('defaults to the daemon-applies flow, manifests/ and the default owner', () => {
    expect(readInputs({ INPUT_COMMAND: 'plan' })).toMatchObject({
      command: 'plan',
      flow: 'daemon-applies',
      manifests: 'manifests',
      owner: 'default',
    });
  });

  it('wait without daemon-url reads the commit status through GitHub, and without a token says which permission it needs', async () => {
    const summary = join(scratch, 'summary-wait.md');
    await writeFile(summary, '');

    const code = await main('run', { INPUT_COMMAND: 'wait', GITHUB_STEP_SUMMARY: summary });

    expect(readInputs({ INPUT_COMMAND: 'wait' })).toMatchObject({
      command: 'wait',
      daemonUrl: '',
      instance: '',
    });
    expect(code).toBe(1);
    expect(await readFile(summary, 'utf8')).toContain(
      'it needs input github-token with permissions statuses: read',
    );
  });

  it('a bad input fails the step with the message in the log and the job summary', async () => {
    const summary = join(scratch, 'summary.md');
    await writeFile(summary, '');

    const code = await main('run', {
      INPUT_COMMAND: 'apply',
      INPUT_FLOW: 'daemon-applies',
      GITHUB_STEP_SUMMARY: summary,
    });

    expect(code).toBe(1);
    expect(await readFile(summary, 'utf8')).toContain('### edgesync action failed');
  });

  it('input plan-key reaches edgesync as a file of the runner user only, outside the checkout, and never as a variable', async () => {
    const checkout = join(scratch, 'checkout');
    const runnerTemp = join(scratch, 'runner-temp');
    await mkdir(checkout);
    await mkdir(runnerTemp);
    const seen = join(scratch, 'seen.json');
    // A stand-in for edgesync (input `cli`): it says what it was given.
    const stand = join(scratch, 'stand-in.mjs');
    await writeFile(
      stand,
      `import { readFileSync, statSync, writeFileSync } from 'node:fs';
const file = process.env.EDGESYNC_PLAN_KEY_FILE;
writeFileSync(${JSON.stringify(seen)}, JSON.stringify({
  file, mode: statSync(file).mode & 0o777, key: readFileSync(file, 'utf8'),
  variables: Object.entries(process.env).filter(([, value]) => value?.includes('sh-key-')).map(([name]) => name),
}));
process.exitCode = 1;
`,
    );
    const cwd = process.cwd();
    process.chdir(checkout);
    try {
      await main('run', {
        INPUT_COMMAND: 'plan',
        INPUT_CLI: `${process.execPath} ${stand}`,
        INPUT_PLAN_KEY: 'action-sh-key-0123456789abcdef0123456789',
        RUNNER_TEMP: runnerTemp,
      });
    } finally {
      process.chdir(cwd);
    }
    const given = JSON.parse(await readFile(seen, 'utf8')) as {
      file: string;
      mode: number;
      key: string;
      variables: string[];
    };

    expect(given.file.startsWith(`${runnerTemp}/`)).toBe(true);
    expect(given.mode).toBe(0o600);
    expect(given.key).toBe('action-sh-key-0123456789abcdef0123456789');
    expect(given.variables).toEqual([]);
  });

  it('input status-token reaches edgesync as --status-token-file, a file of the runner user only, with daemon-url, and never as a variable', async () => {
    const runnerTemp = join(scratch, 'runner-temp-status');
    await mkdir(runnerTemp);
    const seen = join(scratch, 'seen-status.json');
    const stand = join(scratch, 'stand-in-status.mjs');
    await writeFile(
      stand,
      `import { readFileSync, statSync, writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const file = args[args.indexOf('--status-token-file') + 1];
writeFileSync(${JSON.stringify(seen)}, JSON.stringify({
  args, file, mode: statSync(file).mode & 0o777, token: readFileSync(file, 'utf8'),
  variables: Object.entries(process.env).filter(([, value]) => value?.includes('status-tok-')).map(([name]) => name),
}));
process.exitCode = 1;
`,
    );

    await main('run', {
      INPUT_COMMAND: 'wait',
      INPUT_CLI: `${process.execPath} ${stand}`,
      INPUT_DAEMON_URL: 'http://edgesync.internal:9090',
      INPUT_STATUS_TOKEN: 'status-tok-0123456789abcdef',
      GITHUB_SHA: '1111111111111111111111111111111111111111',
      RUNNER_TEMP: runnerTemp,
    });
    const given = JSON.parse(await readFile(seen, 'utf8')) as {
      args: string[];
      file: string;
      mode: number;
      token: string;
      variables: string[];
    };

    expect(given.args.slice(0, 3)).toEqual(['status', '--daemon-url', 'http://edgesync.internal:9090']);
    expect(given.file.startsWith(`${runnerTemp}/`)).toBe(true);
    expect(given.mode).toBe(0o600);
    expect(given.token).toBe('status-tok-0123456789abcdef');
    expect(given.variables).toEqual([]);
  });

  it('no text, backticks included, closes the fenced block it is quoted in before its end', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('`', 'a', '\n', ' ', '~') }), (text) => {
        const block = fenced(text).split('\n');
        const fence = block[0]?.replace(/text$/, '') ?? '';

        expect(block.at(-1)).toBe(fence);
        expect(block.slice(1, -1).some((line) => line.trimStart().startsWith(fence))).toBe(false);
      }),
      { numRuns: propertyRuns({ small: 100, large: 1000 }) },
    );
  });
});
