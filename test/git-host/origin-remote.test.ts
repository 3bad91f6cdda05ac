import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  parseGitConfig,
  parseRemoteUrl,
  readOriginRemote,
  remoteUrl,
} from '../../src/git-host/origin-remote.js';

const HAS_GIT = spawnSync('git', ['--version']).status === 0;

describe("the checkout's origin remote, read from git's files", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-remote-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['https://github.com/acme/infra.git', 'github.com', 'acme/infra'],
    ['https://x-access-token:ghs_SECRET@github.com/acme/infra', 'github.com', 'acme/infra'],
    [
      'https://oauth2:glpat-SECRET@gitlab.example.com:8443/platform/network/infra.git/',
      'gitlab.example.com:8443',
      'platform/network/infra',
    ],
    ['git@github.com:acme/infra.git', 'github.com', 'acme/infra'],
    ['git@gitlab.com:platform/network/edge/infra.git', 'gitlab.com', 'platform/network/edge/infra'],
    ['ssh://git@gitea.example.com:2222/acme/infra.git', 'gitea.example.com', 'acme/infra'],
    ['git://example.org/acme/infra', 'example.org', 'acme/infra'],
    ['https://git.example.com/gitea/acme/infra', 'git.example.com', 'gitea/acme/infra'],
    ['[::1]:acme/infra.git', '::1', 'acme/infra'],
  ])('%s → host %s, path %s, no userinfo', (url, host, path) => {
    const remote = parseRemoteUrl(url);

    expect(remote).toEqual({ host, path });
    expect(JSON.stringify(remote)).not.toMatch(/SECRET|git@|oauth2/);
  });

  it.each(['/srv/git/infra.git', './infra', 'file:///srv/git/infra.git', 'https://github.com/', ''])(
    '%s names no host and repository: null',
    (url) => {
      expect(parseRemoteUrl(url)).toBeNull();
    },
  );

  it('reads sections, quoted subsections, comments, quoted values, continuations and insteadOf as git does', () => {
    const config = parseGitConfig(
      [
        '[core]',
        '\tbare = false ; a comment',
        '[remote "upstream"]',
        '\turl = https://github.com/other/repo',
        '[Remote "origin"]   # the one cloned from',
        '\tURL = "gh:acme/in\\',
        'fra" # comment',
        '\tfetch = +refs/heads/*:refs/remotes/origin/*',
        '\turl = https://second.example.com/ignored',
        '[url "https://github.com/"]',
        '\tinsteadOf = gh:',
        '[url "https://github.example.com/"]',
        '\tinsteadOf = g',
        '[remote.old]',
        '\turl = https://old.example.com/a/b',
      ].join('\n'),
    );

    expect(remoteUrl(config, 'origin')).toBe('https://github.com/acme/infra');
    expect(remoteUrl(config, 'upstream')).toBe('https://github.com/other/repo');
    expect(remoteUrl(config, 'old')).toBe('https://old.example.com/a/b');
    expect(remoteUrl(config, 'missing')).toBeNull();
  });

  it('finds origin from a directory inside the checkout and from a worktree (its commondir config); null outside', async () => {
    const repo = join(dir, 'repo');
    await mkdir(join(repo, '.git', 'worktrees', 'wt'), { recursive: true });
    await mkdir(join(repo, 'manifests', 'deep'), { recursive: true });
    await writeFile(
      join(repo, '.git', 'config'),
      '[remote "origin"]\n\turl = https://token:SECRET@gitlab.com/platform/network/infra.git\n',
    );
    await writeFile(join(repo, '.git', 'worktrees', 'wt', 'commondir'), '../..\n');
    await mkdir(join(dir, 'wt', 'manifests'), { recursive: true });
    await writeFile(join(dir, 'wt', '.git'), `gitdir: ${join(repo, '.git', 'worktrees', 'wt')}\n`);

    expect(await readOriginRemote(join(repo, 'manifests', 'deep'))).toEqual({
      host: 'gitlab.com',
      path: 'platform/network/infra',
    });
    expect(await readOriginRemote(join(dir, 'wt', 'manifests'))).toEqual({
      host: 'gitlab.com',
      path: 'platform/network/infra',
    });
    expect(await readOriginRemote(tmpdir())).toBeNull();
  });

  it.skipIf(!HAS_GIT)('agrees with `git remote get-url origin` on a clone made by git', async () => {
    const source = join(dir, 'source');
    await mkdir(source);
    execFileSync('git', ['init', '-q', source]);
    const clone = join(dir, 'clone');
    execFileSync('git', ['clone', '-q', source, clone], { stdio: 'ignore' });
    execFileSync('git', ['-C', clone, 'remote', 'set-url', 'origin', 'git@gitea.example.com:acme/infra.git']);
    execFileSync('git', [
      '-C',
      clone,
      'config',
      'url.ssh://git@gitea.example.com/.insteadOf',
      'git@gitea.example.com:',
    ]);
    const byGit = execFileSync('git', ['-C', clone, 'remote', 'get-url', 'origin'], {
      encoding: 'utf8',
    }).trim();

    expect(byGit).toBe('ssh://git@gitea.example.com/acme/infra.git');
    expect(await readOriginRemote(clone)).toEqual({ host: 'gitea.example.com', path: 'acme/infra' });
  });
});
