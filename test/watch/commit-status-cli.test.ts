import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { COMMIT_STATUS_PROVIDERS } from '../../src/git-host/commit-status-providers.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { FakeGitHost, type HostedStatus } from '../support/fake-git-host.js';
import {
  assertBuilt,
  type DaemonProcess,
  eventually,
  getStatus,
  type RuleSpec,
  rulesManifest,
  startDaemon,
} from './daemon-process.js';

const POLICY = 'ipp_CommitStatusTestPolicy00001';
const OWNER = 'platform-prod';
const CONTEXT = `edgesync/${OWNER}/eu-west`;
/** Commits as the checkout's HEAD names them; the stand-in host holds their graph. */
const [A, B, C, D, E, F, G] = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', '07'].map((prefix) =>
  prefix.repeat(20),
) as [string, string, string, string, string, string, string];
/** A token in the remote's URL, which the daemon must never print either. */
const REMOTE_SECRET = 'glpat-REMOTE-SECRET-9f2c';

/**
 * `watch --commit-status` against a local stand-in for each host's API, as
 * a process: the checkout is a `.git` directory the test writes (HEAD
 * moves, as git-sync moves it), the host knows the commits' graph, and the
 * daemon posts what becomes of each commit: success once live, failure
 * naming the first problem at file:line (invalid manifests, a skipped
 * entry), live through a newer commit that contains one replaced before it
 * went live, superseded by one that does not. The token is never printed.
 */
describe.each(COMMIT_STATUS_PROVIDERS)('watch --commit-status %s (the daemon as a process)', (provider) => {
  let emulator: RunningEmulator;
  let host: FakeGitHost;
  let dir: string;
  let daemon: DaemonProcess | undefined;
  const word = (state: 'pending' | 'success' | 'failure' | 'error'): string =>
    provider === 'gitlab'
      ? { pending: 'running', success: 'success', failure: 'failed', error: 'canceled' }[state]
      : state;

  /** Moves the checkout to `commit` with these rules (HEAD first, then the file, as a checkout does), or raw text. */
  async function checkout(commit: string, rules: Record<string, RuleSpec> | string): Promise<void> {
    await writeFile(join(dir, '.git', 'HEAD'), `${commit}\n`);
    const text = typeof rules === 'string' ? rules : rulesManifest(POLICY, rules);
    await writeFile(join(dir, 'manifests', '.rules.tmp'), text);
    await rename(join(dir, 'manifests', '.rules.tmp'), join(dir, 'manifests', 'rules.yaml'));
  }

  /** The newest status of the context on `commit` once it is `state`. */
  const reaches = (
    commit: string,
    state: 'pending' | 'success' | 'failure' | 'error',
    description = /./,
  ): Promise<HostedStatus> =>
    eventually(() => {
      const latest = host.latest(commit, CONTEXT);
      return latest?.state === word(state) && description.test(latest.description) ? latest : undefined;
    }, 15_000);

  /** The daemon's reconcile of `commit` held its delete; its status then says so (GitLab keeps a running status's first description). */
  const reachesHeld = async (commit: string): Promise<HostedStatus> => {
    await eventually(async () => {
      const status = await getStatus(daemon as DaemonProcess);
      return status.git?.checkout_commit === commit && status.last_reconcile?.result === 'settling'
        ? true
        : undefined;
    }, 15_000);
    return reaches(commit, 'pending', provider === 'gitlab' ? /^reconciling$/ : /^held/);
  };

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), `edgesync-commit-status-${provider}-`));
    await mkdir(join(dir, '.git'), { recursive: true });
    await mkdir(join(dir, 'manifests'));
    host = new FakeGitHost(provider);
    await host.start();
    for (const [commit, parents] of [
      [B, [A]],
      [C, [B]],
      [D, [C]],
      [E, [D]],
      [F, [E]],
      [G, [E]],
    ] as const) {
      host.parents.set(commit, parents);
    }
    await writeFile(join(dir, 'token'), `${host.token}\n`, { mode: 0o600 });
    await writeFile(
      join(dir, '.git', 'config'),
      `[remote "origin"]\n\turl = https://oauth2:${REMOTE_SECRET}@git.example.com/${host.repository}.git\n`,
    );
    emulator = await startEmulator({
      seed: {
        ip_policies: [{ id: POLICY }],
        ip_policy_rules: [
          {
            ip_policy_id: POLICY,
            cidr: '172.16.0.0/12',
            action: 'deny',
            metadata: encodeMetadata(undefined, { owner: 'another-team', name: 'theirs' }),
          },
        ],
      },
    });
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await host.close();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('posts success, failure at file:line, failure for a skipped entry, live through and superseded; the token never printed', async () => {
    await checkout(A, { office: { cidr: '203.0.113.0/24' } });
    daemon = await startDaemon(
      emulator,
      [
        'manifests',
        '--owner',
        OWNER,
        '--instance',
        'eu-west',
        '--interval',
        '1h',
        '--settle',
        '2s',
        '--commit-status',
        provider,
        '--commit-status-api-url',
        host.apiUrl,
        '--commit-status-token-file',
        'token',
        '--status-page-url',
        'https://edgesync.example.com/eu-west/',
      ],
      dir,
    );

    const live = await reaches(A, 'success');
    await checkout(
      B,
      `version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: 300.0.0.0/8\n    action: allow\n`,
    );
    const invalid = await reaches(B, 'failure');
    await checkout(C, {
      office: { cidr: '203.0.113.0/24' },
      blocked: { cidr: '172.16.0.0/12', action: 'deny' },
    });
    const skipped = await reaches(C, 'failure');
    // D removes office: its delete waits for --settle, and E, which contains D, replaces it before then.
    await checkout(D, { partner: { cidr: '198.51.100.0/24' } });
    const held = await reachesHeld(D);
    await checkout(E, { office: { cidr: '203.0.113.0/24' }, partner: { cidr: '198.51.100.0/24' } });
    await reaches(E, 'success');
    const through = await reaches(D, 'success');
    // F removes partner (held), and G, a sibling of F that does not contain it, replaces it.
    await checkout(F, { office: { cidr: '203.0.113.0/24' } });
    await reachesHeld(F);
    await checkout(G, {
      office: { cidr: '203.0.113.0/24' },
      partner: { cidr: '198.51.100.0/24' },
      third: { cidr: '192.0.2.0/24' },
    });
    await reaches(G, 'success');
    const superseded = await reaches(F, 'error');
    const status = await getStatus(daemon);
    const shown = [
      daemon.stderr(),
      JSON.stringify(status),
      await (await fetch(`${daemon.url}/metrics`)).text(),
      await (await fetch(`${daemon.url}/`)).text(),
    ].join('\n');

    expect(host.history(A, CONTEXT)).toEqual([word('pending'), word('success')]);
    expect(live).toMatchObject({
      description: 'live and in sync',
      targetUrl: 'https://edgesync.example.com/eu-west/',
    });
    expect(invalid.description).toMatch(/^manifests\/rules\.yaml:5:5: ip_policy_rules\.office\.cidr: /);
    expect(skipped.description).toMatch(
      /^manifests\/rules\.yaml:\d+:\d+: skipped ip_policy_rules\.blocked \(/,
    );
    expect(held.description).toBe(
      provider === 'gitlab' ? 'reconciling' : 'held: 1 delete wait for the manifests to settle',
    );
    expect(through.description).toBe(`live through ${E.slice(0, 12)}`);
    expect(superseded.description).toMatch(new RegExp(`^superseded by ${G.slice(0, 12)} `));
    expect([...superseded.description].length).toBeLessThanOrEqual(140);
    expect(status.commit_statuses).toMatchObject({
      provider,
      repo: host.repository,
      context: CONTEXT,
      failed: 0,
    });
    expect(shown).toContain('edgesync_commit_status_posts_total{result="posted"}');
    expect(shown).not.toContain(host.token);
    expect(shown).not.toContain(REMOTE_SECRET);
  }, 90_000);
});
