import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { runAction } from '../pr-flow/action-runner.js';
import { FakeGitHub } from '../pr-flow/fake-github.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  getStatus,
  listRules,
  rulesManifest,
  startDaemon,
} from '../watch/daemon-process.js';

const HAS_GIT = spawnSync('git', ['--version']).status === 0;
const POLICY = 'ipp_TwoFlowsTestPolicy000000001';
const PLAN_MARKER = '<!-- edgesync-plan -->';
const MERGE_MARKER = '<!-- edgesync-merge -->';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

/** A repository of manifests, with pull requests made on branches and merged with --no-ff, as GitHub merges them. */
class Repository {
  constructor(readonly dir: string) {}

  static async create(dir: string, rules: string): Promise<Repository> {
    await mkdir(join(dir, 'manifests'), { recursive: true });
    const repository = new Repository(dir);
    git(dir, 'init', '-q', '-b', 'main');
    await repository.write(rules, 'manifests');
    return repository;
  }

  async write(rules: string, message: string): Promise<string> {
    await writeFile(join(this.dir, 'manifests', 'rules.yaml'), rules);
    git(this.dir, 'add', 'manifests');
    git(this.dir, 'commit', '-qm', message);
    return git(this.dir, 'rev-parse', 'HEAD');
  }

  /** A pull request's branch with one commit; returns its head commit. */
  async pullRequest(branch: string, rules: string): Promise<string> {
    git(this.dir, 'checkout', '-q', '-b', branch, 'main');
    return this.write(rules, branch);
  }

  /** Merges the branch into main; returns the merge commit. */
  merge(branch: string): string {
    git(this.dir, 'checkout', '-q', 'main');
    git(this.dir, 'merge', '-q', '--no-ff', '-m', `Merge ${branch}`, branch);
    return git(this.dir, 'rev-parse', 'HEAD');
  }
}

const pullRequestEvent = (number: number, head: string) => ({
  pull_request: { number, head: { sha: head } },
});

/**
 * Both GitOps flows end to end, as processes: a git repository, a pull
 * request planned by the action's script (with a local stand-in for GitHub's
 * API), a merge, then the daemon (daemon-applies) or the merge job
 * (ci-applies) applying it, and the pull request told what happened: live,
 * stale, or failed with edgesync's own error.
 */
describe.skipIf(!HAS_GIT)('the two GitOps flows, as a repository runs them', () => {
  let emulator: RunningEmulator;
  let github: FakeGitHub;
  let scratch: string;
  const daemons: DaemonProcess[] = [];

  const secrets = () => ({ EDGE_API_URL: emulator.url, EDGE_API_KEY: emulator.apiKey });
  const ownedRules = async (owner: string) =>
    (await listRules(emulator)).filter((rule) => rule.metadata?.includes(`"${owner}"`));

  beforeAll(async () => {
    assertBuilt();
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-two-flows-'));
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
    github = new FakeGitHub();
    await github.start();
  });
  afterAll(async () => {
    for (const daemon of daemons) await daemon.stop('SIGKILL');
    await github?.close();
    await emulator?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('daemon applies: the PR gets the plan, the merge job waits until the daemon says the commit is live (or failed, with file:line), a CI apply next to it is refused, and a reviewed plan it already applied is "already applied"', async () => {
    const owner = 'flow-daemon';
    const base = { office: { cidr: '203.0.113.0/24' } };
    const repo = await Repository.create(join(scratch, 'daemon-repo'), rulesManifest(POLICY, base));
    const live = join(scratch, 'daemon-live');
    git(scratch, 'clone', '-q', repo.dir, live);
    // The daemon posts each commit's state to GitHub; the merge job reads it there, with no route to the daemon.
    await writeFile(join(scratch, 'status-token'), github.token, { mode: 0o600 });
    const daemon = await startDaemon(
      emulator,
      [
        'manifests',
        '--owner',
        owner,
        '--interval',
        '1h',
        '--commit-status',
        'github',
        '--commit-status-api-url',
        github.url,
        '--commit-status-repo',
        github.repository,
        '--commit-status-token-file',
        join(scratch, 'status-token'),
      ],
      live,
    );
    daemons.push(daemon);
    const first = git(repo.dir, 'rev-parse', 'HEAD');
    await eventually(async () =>
      (await getStatus(daemon)).git?.last_applied_commit === first ? true : undefined,
    );
    const inputs = { flow: 'daemon-applies', manifests: 'manifests', owner };

    // A pull request: one rule more.
    const head = await repo.pullRequest(
      'partner',
      rulesManifest(POLICY, { ...base, partner: { cidr: '198.51.100.0/24' } }),
    );
    github.addHumanComment(1, `${PLAN_MARKER} a person quoting the marker`);
    const planned = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'plan' },
      eventName: 'pull_request',
      event: pullRequestEvent(1, head),
      sha: head,
      cwd: repo.dir,
      env: secrets(),
    });
    const replanned = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'plan' },
      eventName: 'pull_request',
      event: pullRequestEvent(1, head),
      sha: head,
      cwd: repo.dir,
      env: secrets(),
    });

    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.outputs).toMatchObject({ exitcode: '2', result: 'changes', saved: 'false' });
    expect(replanned.code).toBe(0);
    expect(github.botComments(1, PLAN_MARKER)).toHaveLength(1);
    expect(github.comments.get(1)?.[0]?.body).toBe(`${PLAN_MARKER} a person quoting the marker`);
    expect(github.botComments(1, PLAN_MARKER)[0]?.body).toContain(
      'On merge the daemon applies the merged commit',
    );
    expect(github.botComments(1, PLAN_MARKER)[0]?.body).toContain('**Plan: 1 to create, 0 to update');
    expect(planned.summary).toContain('**Plan: 1 to create, 0 to update');
    expect(planned.stderr + planned.stdout + planned.summary).not.toContain(github.token);

    // The merge: the daemon's checkout is pulled, and the merge job waits for the daemon.
    const merged = repo.merge('partner');
    github.merges.set(merged, { number: 1, headSha: head, base: 'main' });
    git(live, 'pull', '-q', '--ff-only');
    const found = await runAction(github, {
      phase: 'find-reviewed',
      eventName: 'push',
      sha: merged,
      cwd: repo.dir,
    });
    const waited = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'wait', 'wait-timeout': '60s', pull: found.outputs.pull ?? '' },
      eventName: 'push',
      sha: merged,
      cwd: repo.dir,
    });
    const afterMerge = await ownedRules(owner);

    expect(found.outputs).toEqual({ pull: '1', 'run-id': '' });
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.outputs).toMatchObject({ exitcode: '0', result: 'live' });
    expect(github.botComments(1, MERGE_MARKER)[0]?.body).toContain(
      `### edgesync: \`${merged.slice(0, 7)}\` is live`,
    );
    expect(github.commitStatuses.history(merged, `edgesync/${owner}`)).toEqual(['pending', 'success']);
    expect(
      github.commitStatuses.requests.filter((request) => request.path.includes('/statuses/')).length,
    ).toBeGreaterThan(0);
    expect(afterMerge.map((rule) => rule.cidr).sort()).toEqual(['198.51.100.0/24', '203.0.113.0/24']);

    // The reviewed plan, applied by CI after the daemon: already applied, nothing created.
    const again = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, flow: 'ci-applies', command: 'apply', pull: '1' },
      eventName: 'push',
      sha: merged,
      cwd: repo.dir,
      env: secrets(),
    });
    // The same apply told where the daemon is: refused, since the daemon enforces this owner.
    const fighting = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, flow: 'ci-applies', command: 'apply', pull: '1', 'daemon-url': daemon.url },
      eventName: 'push',
      sha: merged,
      cwd: repo.dir,
      env: secrets(),
    });
    const wrongFlow = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'apply' },
      eventName: 'push',
      sha: merged,
      cwd: repo.dir,
      env: secrets(),
    });

    expect(again.code, again.stderr).toBe(0);
    expect(again.outputs).toMatchObject({ exitcode: '0', result: 'already-applied' });
    expect(again.stdout).toContain(
      'Already applied: the account already holds every change of edgesync-plan/plan.json; nothing was sent.',
    );
    expect((await ownedRules(owner)).map((rule) => rule.id).sort()).toEqual(
      afterMerge.map((rule) => rule.id).sort(),
    );
    expect(fighting.code).toBe(1);
    expect(fighting.outputs).toMatchObject({ exitcode: '4', result: 'refused' });
    expect(github.botComments(1, MERGE_MARKER)[0]?.body).toContain(
      `enforces owner "${owner}" and applies every merged commit itself`,
    );
    expect(wrongFlow.code).toBe(1);
    expect(wrongFlow.stderr).toContain('command apply with flow daemon-applies');

    // A merge the daemon cannot apply: the pull request is told, with the daemon's error at file:line.
    const brokenHead = await repo.pullRequest(
      'broken',
      rulesManifest(POLICY, { ...base, partner: { cidr: '198.51.100.0/33' } }),
    );
    const brokenMerge = repo.merge('broken');
    github.merges.set(brokenMerge, { number: 2, headSha: brokenHead, base: 'main' });
    git(live, 'pull', '-q', '--ff-only');
    const failed = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'wait', 'wait-timeout': '60s', pull: '2' },
      eventName: 'push',
      sha: brokenMerge,
      cwd: repo.dir,
    });
    const told = github.botComments(2, MERGE_MARKER)[0]?.body ?? '';

    expect(failed.code).toBe(1);
    expect(failed.outputs).toMatchObject({ exitcode: '1', result: 'failed' });
    expect(told).toContain(`### edgesync: \`${brokenMerge.slice(0, 7)}\` failed on the daemon (exit 1)`);
    expect(told).toMatch(/manifests\/rules\.yaml:\d+:\d+: ip_policy_rules\.partner\.cidr: prefix \/33/);
  }, 300_000);

  it('CI applies: the merge job applies the reviewed plan next to an observing daemon, posts a stale plan with the plan as it stands, and every failure with its error', async () => {
    const owner = 'flow-ci';
    const base = { gateway: { cidr: '192.0.2.0/24', description: 'gateway' } };
    const repo = await Repository.create(join(scratch, 'ci-repo'), rulesManifest(POLICY, base));
    const daemon = await startDaemon(
      emulator,
      ['manifests', '--owner', owner, '--mode', 'observe', '--interval', '1h'],
      repo.dir,
    );
    daemons.push(daemon);
    const first = await runAction(github, {
      phase: 'run',
      inputs: { command: 'apply', flow: 'ci-applies', owner },
      eventName: 'workflow_dispatch',
      sha: git(repo.dir, 'rev-parse', 'HEAD'),
      cwd: repo.dir,
      env: secrets(),
    });
    const inputs = { flow: 'ci-applies', manifests: 'manifests', owner, 'daemon-url': daemon.url };

    // A pull request, planned and saved; the merge finds the run that planned it and applies that plan.
    const head = await repo.pullRequest(
      'vpn',
      rulesManifest(POLICY, { ...base, vpn: { cidr: '192.0.2.128/25' } }),
    );
    const planned = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'plan' },
      eventName: 'pull_request',
      event: pullRequestEvent(11, head),
      sha: head,
      cwd: repo.dir,
      env: secrets(),
    });
    github.planRuns.set(head, 501);
    const merged = repo.merge('vpn');
    github.merges.set(merged, { number: 11, headSha: head, base: 'main' });
    const found = await runAction(github, {
      phase: 'find-reviewed',
      eventName: 'push',
      sha: merged,
      cwd: repo.dir,
    });
    const applied = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'apply', pull: found.outputs.pull ?? '' },
      eventName: 'push',
      sha: merged,
      cwd: repo.dir,
      env: secrets(),
    });

    expect(first.code, first.stderr).toBe(0);
    expect(planned.outputs).toMatchObject({ exitcode: '2', saved: 'true' });
    expect(github.botComments(11, PLAN_MARKER)[0]?.body).toContain('On merge this exact plan is applied');
    expect(found.outputs).toEqual({ pull: '11', 'run-id': '501' });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.outputs).toMatchObject({ exitcode: '0', result: 'applied' });
    expect(applied.stderr).toContain(`the daemon at ${daemon.url} observes only`);
    expect(github.botComments(11, MERGE_MARKER)[0]?.body).toContain(
      `### edgesync: \`${merged.slice(0, 7)}\` is live`,
    );
    expect((await ownedRules(owner)).map((rule) => rule.cidr).sort()).toEqual([
      '192.0.2.0/24',
      '192.0.2.128/25',
    ]);

    // A second pull request is planned; then someone changes the account by hand before it merges.
    const rewordHead = await repo.pullRequest(
      'reword',
      rulesManifest(POLICY, {
        gateway: { cidr: '192.0.2.0/24', description: 'main gateway' },
        vpn: { cidr: '192.0.2.128/25' },
      }),
    );
    await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'plan' },
      eventName: 'pull_request',
      event: pullRequestEvent(12, rewordHead),
      sha: rewordHead,
      cwd: repo.dir,
      env: secrets(),
    });
    const gateway = (await ownedRules(owner)).find((rule) => rule.cidr === '192.0.2.0/24');
    const patched = await callService(emulator, 'PATCH', `/ip_policy_rules/${gateway?.id}`, {
      description: 'changed by hand',
    });
    const rewordMerge = repo.merge('reword');
    const stale = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'apply', pull: '12' },
      eventName: 'push',
      sha: rewordMerge,
      cwd: repo.dir,
      env: secrets(),
    });
    const staleComment = github.botComments(12, MERGE_MARKER)[0]?.body ?? '';

    expect(patched.status).toBe(200);
    expect(stale.code).toBe(1);
    expect(stale.outputs).toMatchObject({ exitcode: '3', result: 'stale' });
    expect(staleComment).toContain('### edgesync: the plan changed since review — nothing was applied');
    expect(staleComment).toContain('changed since the plan was made');
    expect(staleComment).toContain('**Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.**');
    expect(staleComment).toContain('-     description = "changed by hand"');

    // Errors keep their text: a refused key on a merge, and on a run by hand (which plans first).
    const badKey = { ...secrets(), EDGE_API_KEY: 'not-the-key' };
    const failedApply = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'apply', pull: '12' },
      eventName: 'push',
      sha: rewordMerge,
      cwd: repo.dir,
      env: badKey,
    });
    const dispatched = await runAction(github, {
      phase: 'run',
      inputs: { ...inputs, command: 'apply' },
      eventName: 'workflow_dispatch',
      sha: rewordMerge,
      cwd: repo.dir,
      env: badKey,
    });

    expect(failedApply.code).toBe(1);
    expect(failedApply.outputs).toMatchObject({ exitcode: '1', result: 'failed' });
    expect(github.botComments(12, MERGE_MARKER)[0]?.body).toMatch(
      /### edgesync apply failed \(exit 1\)[\s\S]*401/,
    );
    expect(dispatched.code).toBe(1);
    expect(dispatched.outputs).toMatchObject({ exitcode: '1', result: 'failed' });
    expect(dispatched.summary).toMatch(/### edgesync plan failed \(exit 1\); nothing applied[\s\S]*401/);
    expect(dispatched.summary).not.toContain('no reviewed plan');
    expect(failedApply.summary + dispatched.summary + dispatched.stderr).not.toContain('not-the-key');
  }, 300_000);
});
