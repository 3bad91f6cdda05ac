import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fenced, main, readInputs } from '../../scripts/action/edgesync-action.mjs';

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
    [{ INPUT_COMMAND: 'wait' }, 'command wait needs input daemon-url'],
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

  it('no text, backticks included, closes the fenced block it is quoted in before its end', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('`', 'a', '\n', ' ', '~') }), (text) => {
        const block = fenced(text).split('\n');
        const fence = block[0]?.replace(/text$/, '') ?? '';

        expect(block.at(-1)).toBe(fence);
        expect(block.slice(1, -1).some((line) => line.trimStart().startsWith(fence))).toBe(false);
      }),
    );
  });
});
