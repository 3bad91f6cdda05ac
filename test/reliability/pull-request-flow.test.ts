import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { type ActionRun, runAction } from '../pr-flow/action-runner.js';
import { FakeGitHub } from '../pr-flow/fake-github.js';
import { BUILT_CLI } from '../support/built-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const OWNER = 'platform-prod';
const OIDC_SECRET = 'pr-flow-oidc-secret-never-printed';

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function spawn(
  file: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, [...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A rule per line, each with a description long enough that 300 of them overflow a GitHub comment. */
function manyRules(count: number): string {
  const lines = ['version: 1', 'ip_policy_rules:'];
  for (let index = 0; index < count; index += 1) {
    lines.push(
      `  pr-rule-${index}:`,
      '    ip_policy_id: ipp_OfficeVpnPolicy000000000001',
      `    cidr: 10.${Math.floor(index / 256)}.${index % 256}.0/24`,
      '    action: allow',
      `    description: partner office ${index} ${'x'.repeat(120)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

// Here, not in `npm test`: git, the action's script and the CLI as processes over 300 rules (about
// 15 s in a loaded `npm test`). In `npm test`, test/pr-flow/action-script.test.ts and
// github-workflow.test.ts hold the action and the workflows, test/plan/render-markdown-budget.test.ts
// a comment of 300 creates within GitHub's bound, test/manifest/validate-cli.test.ts the SARIF, and
// test/apply/saved-plan-claims.test.ts and apply-command.test.ts a saved plan applied, already applied
// or refused as stale (exit 3).
/**
 * A user's pull request, end to end, as processes: a git repository of
 * manifests, a branch that changes them, the action's script (action.yml's
 * logic, with the built CLI standing for the image and a local stand-in for
 * GitHub's API), a merge applied by CI, and a stale plan.
 */
describe('the pull-request flow, as a user runs it', () => {
  let emulator: RunningEmulator;
  let scratch: string;
  let repo: string;
  let github: FakeGitHub;

  const secrets = (): Record<string, string> => ({
    EDGE_API_URL: emulator.url,
    EDGE_API_KEY: emulator.apiKey,
    OIDC_CLIENT_SECRET: OIDC_SECRET,
  });
  const baseEnv = (): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    GIT_AUTHOR_NAME: 'A User',
    GIT_AUTHOR_EMAIL: 'user@example.com',
    GIT_COMMITTER_NAME: 'A User',
    GIT_COMMITTER_EMAIL: 'user@example.com',
  });
  const git = (...args: string[]): Promise<Ran> => spawn('git', args, repo, baseEnv());
  const edgesync = (args: readonly string[], env: Record<string, string> = secrets()): Promise<Ran> =>
    spawn(process.execPath, [BUILT_CLI, ...args], repo, { ...baseEnv(), ...env });

  /** The action's script for `command` in the ci-applies flow, as a runner runs it. */
  const action = (
    command: string,
    event: { name: 'pull_request' | 'push'; sha: string; pull?: number },
  ): Promise<ActionRun> =>
    runAction(github, {
      phase: 'run',
      inputs: {
        command,
        flow: 'ci-applies',
        manifests: 'manifests',
        owner: OWNER,
        ...(event.name === 'push' && event.pull !== undefined ? { pull: String(event.pull) } : {}),
      },
      eventName: event.name,
      event:
        event.name === 'pull_request'
          ? { pull_request: { number: event.pull, head: { sha: event.sha } } }
          : { head_commit: { id: event.sha } },
      sha: event.sha,
      cwd: repo,
      env: secrets(),
    });
  const head = async (): Promise<string> => (await git('rev-parse', 'HEAD')).stdout.trim();

  beforeAll(async () => {
    emulator = await startEmulator({ seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')) });
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-pr-flow-'));
    repo = join(scratch, 'infra');
    github = new FakeGitHub();
    await github.start();
    await mkdir(repo);
    await cp(join(ROOT, 'examples/manifests'), join(repo, 'manifests'), { recursive: true });
    const edges = join(repo, 'manifests/https-edges.yaml');
    await writeFile(
      edges,
      (await readFile(edges, 'utf8')).replace(
        'client_secret: { file: secrets/oidc-client-secret.txt }',
        'client_secret: { env: OIDC_CLIENT_SECRET }',
      ),
    );
    await rm(join(repo, 'manifests/secrets'), { recursive: true });
    await git('init', '-q', '-b', 'main');
    await git('add', '.');
    await git('commit', '-q', '-m', 'manifests');
    const first = await edgesync([
      'apply',
      'manifests',
      '--owner',
      OWNER,
      '--yes',
      '--rate-limit',
      '100000/1s',
    ]);
    if (first.code !== 0) throw new Error(`first apply failed: ${first.stderr}`);
  }, 60_000);

  afterAll(async () => {
    await github?.close();
    await emulator?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('validates without secrets, comments a plan that fits, applies that very plan on merge, and catches a stale one', async () => {
    // A pull request: 300 new rules and one removed.
    await git('checkout', '-q', '-b', 'partners');
    await writeFile(join(repo, 'manifests/partners.yaml'), manyRules(300));
    const rulesFile = join(repo, 'manifests/ip-policy-rules.yaml');
    const rules = await readFile(rulesFile, 'utf8');
    await writeFile(rulesFile, rules.slice(0, rules.indexOf('  scanner-block:')));
    await git('add', '.');
    await git('commit', '-q', '-m', 'partners in, scanner-block out');

    const prHead = await head();
    const validate = await runAction(github, {
      phase: 'run',
      inputs: { command: 'validate', manifests: 'manifests' },
      eventName: 'pull_request',
      sha: prHead,
      cwd: repo,
    });
    const sarif = JSON.parse(await readFile(join(repo, 'edgesync.sarif'), 'utf8')) as {
      version: string;
      runs: { results: unknown[] }[];
    };
    const plan = await action('plan', { name: 'pull_request', sha: prHead, pull: 7 });
    const comment = github.botComments(7, '<!-- edgesync-plan -->')[0]?.body ?? '';

    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/^7 files valid \(306 entries\)$/m);
    expect(validate.outputs).toMatchObject({ exitcode: '0', result: 'valid', sarif: 'edgesync.sarif' });
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]?.results).toEqual([]);
    expect(plan.outputs).toMatchObject({ exitcode: '2', saved: 'true' });
    expect(plan.summary).toContain('**Plan: 300 to create, 0 to update, 0 to replace, 1 to delete.**');
    expect(comment.length).toBeLessThanOrEqual(60_000);
    expect(comment).toContain('**Plan: 300 to create, 0 to update, 0 to replace, 1 to delete.**');
    expect(comment.indexOf('`ip_policy_rules.scanner-block`')).toBeLessThan(comment.indexOf('pr-rule-0'));
    expect(comment).toContain('`manifests/partners.yaml:');
    expect(comment).toMatch(
      /_Not shown to stay under 59,000 characters: .*run `edgesync show edgesync-plan\/plan\.json`/,
    );
    expect(comment + plan.stdout + plan.stderr).not.toContain(OIDC_SECRET);

    // The merge applies the saved plan, the artifact the pull request kept (left where the plan step wrote it).
    await git('checkout', '-q', 'main');
    await git('merge', '-q', '--no-ff', '-m', 'Merge partners', 'partners');
    const merged = await action('apply', { name: 'push', sha: await head(), pull: 7 });
    const after = await edgesync(['plan', 'manifests', '--owner', OWNER, '--detailed-exitcode']);

    expect(merged.outputs.exitcode, merged.stdout + merged.stderr).toBe('0');
    expect(github.botComments(7, '<!-- edgesync-merge -->')[0]?.body).toContain('is live');
    expect(merged.stdout).toContain(
      'Apply complete: 300 created, 0 updated, 0 replaced, 1 deleted, 0 failed',
    );
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain('No changes.');

    // A second pull request is planned; then someone changes the account before it merges.
    await git('checkout', '-q', '-b', 'reword');
    await writeFile(
      rulesFile,
      (await readFile(rulesFile, 'utf8')).replace('Office VPN egress', 'Office VPN'),
    );
    await git('commit', '-q', '-m', 'reword', 'manifests');
    const second = await action('plan', { name: 'pull_request', sha: await head(), pull: 8 });
    const console = createApiClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      budget: new RequestBudget({ requests: 100_000, windowMs: 1000 }),
    });
    const rulesNow: { id: string; metadata: string }[] = [];
    for await (const page of console.paginate<{ id: string; metadata: string }>(
      '/ip_policy_rules',
      'ip_policy_rules',
    ))
      rulesNow.push(...page.items);
    const office = rulesNow.find((rule) => rule.metadata.includes('"office-vpn"'));
    const patched = await console.request({
      method: 'PATCH',
      path: `/ip_policy_rules/${office?.id}`,
      body: { description: 'changed by hand' },
    });
    await git('checkout', '-q', 'main');
    await git('merge', '-q', '--no-ff', '-m', 'Merge reword', 'reword');
    const direct = await edgesync([
      'apply',
      '--plan',
      'edgesync-plan/plan.json',
      'manifests',
      '--owner',
      OWNER,
      '--yes',
    ]);
    const stale = await action('apply', { name: 'push', sha: await head(), pull: 8 });
    const replan = github.botComments(8, '<!-- edgesync-merge -->')[0]?.body ?? '';

    expect(second.outputs.exitcode).toBe('2');
    expect(patched.status).toBe(200);
    expect(direct.code).toBe(3);
    expect(direct.stderr).toContain('changed since the plan was made');
    expect(stale.outputs.exitcode).toBe('3');
    expect(replan).toContain('the plan changed since review — nothing was applied');
    expect(replan).toContain('**Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.**');
    expect(replan).toContain('-     description = "changed by hand"');
    expect(replan).toContain('+     description = "Office VPN"');
  }, 120_000);
});
