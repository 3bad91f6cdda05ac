import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkedOutCommit } from '../../src/watch/git-commit.js';
import { useDaemonHarness } from './daemon-harness.js';

const HAS_GIT = spawnSync('git', ['--version']).status === 0;
const POLICY = 'ipp_GitCommitTestPolicy00000001';
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

function rules(cidr: string): string {
  return `version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: ${cidr}\n    action: allow\n`;
}

describe('which commit is live', () => {
  let dir: string;
  const startDaemon = useDaemonHarness();
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-git-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads HEAD without git: detached, a branch ref, packed-refs, a worktree .git file with commondir; null outside', async () => {
    const repo = join(dir, 'repo');
    await mkdir(join(repo, '.git', 'refs', 'heads'), { recursive: true });
    await mkdir(join(repo, 'manifests', 'deep'), { recursive: true });
    await writeFile(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(join(repo, '.git', 'refs', 'heads', 'main'), `${A}\n`);
    const branch = await checkedOutCommit(join(repo, 'manifests', 'deep'));
    await rm(join(repo, '.git', 'refs', 'heads', 'main'));
    await writeFile(join(repo, '.git', 'packed-refs'), `# pack-refs with: peeled\n${B} refs/heads/main\n`);
    const packed = await checkedOutCommit(join(repo, 'manifests'));
    await mkdir(join(repo, '.git', 'worktrees', 'wt'), { recursive: true });
    await writeFile(join(repo, '.git', 'worktrees', 'wt', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(join(repo, '.git', 'worktrees', 'wt', 'commondir'), '../..\n');
    await mkdir(join(dir, 'wt', 'manifests'), { recursive: true });
    await writeFile(join(dir, 'wt', '.git'), `gitdir: ${join(repo, '.git', 'worktrees', 'wt')}\n`);
    const worktree = await checkedOutCommit(join(dir, 'wt', 'manifests'));
    await writeFile(join(repo, '.git', 'worktrees', 'wt', 'HEAD'), `${A}\n`);
    const detached = await checkedOutCommit(join(dir, 'wt', 'manifests'));

    expect([branch, packed, worktree, detached]).toEqual([A, B, B, A]);
    expect(await checkedOutCommit(tmpdir())).toBeNull();
  });

  it.skipIf(!HAS_GIT)(
    'the daemon reports the applied commit of a git-sync worktree in /status, a log line and edgesync_live_commit_info',
    async () => {
      let first = '';
      const running = await startDaemon({
        emulator: { seed: { ip_policies: [{ id: POLICY }] } },
        paths: [join('current', 'manifests')],
        files: { 'repo/manifests/rules.yaml': rules('203.0.113.0/24') },
        prepare: async (root) => {
          const repo = join(root, 'repo');
          git(repo, 'init', '-q');
          git(repo, 'add', '.');
          git(repo, 'commit', '-qm', 'one');
          first = git(repo, 'rev-parse', 'HEAD');
          git(repo, 'worktree', 'add', '-q', '--detach', join(root, 'rev1'), first);
          await symlink(join(root, 'rev1'), join(root, 'current'));
        },
      });
      const root = running.dir;
      const repo = join(root, 'repo');
      await running.record(1, (record) => record.git.lastAppliedCommit === first);
      const applied = await running.status();

      await writeFile(join(repo, 'manifests', 'rules.yaml'), rules('198.51.100.0/24'));
      git(repo, 'commit', '-qam', 'two');
      const second = git(repo, 'rev-parse', 'HEAD');
      git(repo, 'worktree', 'add', '-q', '--detach', join(root, 'rev2'), second);
      await running.change(
        async () => {
          await symlink(join(root, 'rev2'), join(root, 'current.tmp'));
          await rename(join(root, 'current.tmp'), join(root, 'current'));
        },
        (record) => record.git.lastAppliedCommit === second,
      );
      const samples = await running.metrics();

      expect(applied.git?.checkout_commit).toBe(first);
      expect(samples.filter((sample) => sample.name === 'edgesync_live_commit_info')).toEqual([
        { name: 'edgesync_live_commit_info', labels: { commit: second }, value: 1 },
      ]);
      expect(samples.find((sample) => sample.name === 'edgesync_live_commit_behind')?.value).toBe(0);
      expect(running.logs).toContainEqual(
        expect.objectContaining({ commit: second, result: 'applied', msg: 'commit live' }),
      );
    },
  );
});
