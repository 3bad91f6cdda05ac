import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUSPENDED_DESCRIPTION } from '../../src/git-host/commit-status-text.js';
import { assertBuilt } from '../watch/daemon-process.js';
import { runAction } from './action-runner.js';
import { FakeGitHub } from './fake-github.js';

const MERGE_MARKER = '<!-- edgesync-merge -->';
const SHA = '1'.repeat(40);

/**
 * The action's `command: wait` in the daemon-applies flow, as a runner runs
 * it: with no daemon-url it reads the commit status edgesync/<owner> the
 * daemon posts to GitHub (here a local stand-in for GitHub's API), with the
 * job's token in a file of its own that is gone when the step ends, and
 * tells the merged pull request what became of the commit.
 */
describe("the action's wait, through the commit status on GitHub", () => {
  let github: FakeGitHub;
  let scratch: string;
  beforeAll(async () => {
    assertBuilt();
    github = new FakeGitHub();
    await github.start();
    github.merges.set(SHA, { number: 7, headSha: '2'.repeat(40), base: 'main' });
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-action-wait-'));
  });
  afterAll(async () => {
    await github?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  const wait = (inputs: Record<string, string> = {}) =>
    runAction(github, {
      phase: 'run',
      eventName: 'push',
      sha: SHA,
      cwd: scratch,
      inputs: { command: 'wait', owner: 'platform-prod', 'wait-timeout': '1m', pull: '7', ...inputs },
      env: { RUNNER_TEMP: scratch },
    });

  it.each([
    [
      'success',
      'live and in sync',
      0,
      'live',
      /### edgesync: `1111111` is live\n\nThe daemon's commit status `edgesync\/platform-prod` on `1111111`: live and in sync\./,
    ],
    [
      'failure',
      'manifests/rules.yaml:7:5: not a CIDR',
      1,
      'failed',
      /failed on the daemon \(exit 1\)[\s\S]*manifests\/rules\.yaml:7:5: not a CIDR/,
    ],
    ['pending', SUSPENDED_DESCRIPTION, 1, 'suspended', /is not live: the daemon is suspended/],
  ] as const)(
    'a %s status (%s) exits %i with result %s, told on the pull request',
    async (state, description, code, result, comment) => {
      github.commitStatuses.statuses.clear();
      github.commitStatuses.put(SHA, {
        context: 'edgesync/platform-prod',
        state,
        description,
        targetUrl: null,
      });

      const run = await wait();

      expect(run.code).toBe(code);
      expect(run.outputs.result).toBe(result);
      expect(github.botComments(7, MERGE_MARKER).at(-1)?.body).toMatch(comment);
      expect(`${run.stdout}${run.stderr}${run.summary}`).not.toContain(github.token);
      expect(await readdir(scratch)).toEqual([]);
    },
  );

  it('reads edgesync/<owner>/<instance> when the daemon has an instance name', async () => {
    github.commitStatuses.statuses.clear();
    github.commitStatuses.put(SHA, {
      context: 'edgesync/platform-prod',
      state: 'failure',
      description: 'the other daemon',
      targetUrl: null,
    });
    github.commitStatuses.put(SHA, {
      context: 'edgesync/platform-prod/eu-west',
      state: 'success',
      description: 'live and in sync',
      targetUrl: null,
    });

    const run = await wait({ instance: 'eu-west' });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('live');
  });
});
