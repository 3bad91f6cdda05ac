import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
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

interface Step {
  readonly id?: string;
  readonly name?: string;
  readonly run?: string;
}

/** The `run` script of a step of deploy/github-actions/edgesync.yml. */
async function workflowScript(job: string, step: string): Promise<string> {
  const workflow = parse(await readFile(join(ROOT, 'deploy/github-actions/edgesync.yml'), 'utf8')) as {
    jobs: Record<string, { steps: Step[] }>;
  };
  const found = workflow.jobs[job]?.steps.find((s) => s.id === step || s.name === step)?.run;
  if (found === undefined) throw new Error(`no step ${job}/${step}`);
  return found;
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

/**
 * A user's pull request, end to end, as processes: a git repository of
 * manifests, a branch that changes them, the workflow's own step scripts
 * (with `docker run IMAGE` standing for the built CLI), a merge, and a
 * stale plan.
 */
describe('the pull-request flow, as a user runs it', () => {
  let emulator: RunningEmulator;
  let scratch: string;
  let repo: string;
  let shims: string;

  const secrets = (): Record<string, string> => ({
    EDGE_API_URL: emulator.url,
    EDGE_API_KEY: emulator.apiKey,
    OIDC_CLIENT_SECRET: OIDC_SECRET,
  });
  const baseEnv = (): Record<string, string> => ({
    PATH: `${shims}:${process.env.PATH ?? ''}`,
    HOME: scratch,
    GIT_AUTHOR_NAME: 'A User',
    GIT_AUTHOR_EMAIL: 'user@example.com',
    GIT_COMMITTER_NAME: 'A User',
    GIT_COMMITTER_EMAIL: 'user@example.com',
    EDGESYNC_IMAGE: 'ghcr.io/edgesync/edgesync:test',
    EDGESYNC_OWNER: OWNER,
  });
  const git = (...args: string[]): Promise<Ran> => spawn('git', args, repo, baseEnv());
  const edgesync = (args: readonly string[], env: Record<string, string> = secrets()): Promise<Ran> =>
    spawn(process.execPath, [BUILT_CLI, ...args], repo, { ...baseEnv(), ...env });

  /** Runs a workflow step's script with bash; its `$GITHUB_OUTPUT` lines come back as a record. */
  async function step(
    job: string,
    name: string,
    env: Record<string, string>,
  ): Promise<Ran & { outputs: Record<string, string> }> {
    const output = join(scratch, `output-${job}-${name.replace(/\W+/g, '-')}`);
    await writeFile(output, '');
    const ran = await spawn('bash', ['-e', '-c', await workflowScript(job, name)], repo, {
      ...baseEnv(),
      ...env,
      GITHUB_OUTPUT: output,
    });
    const outputs = Object.fromEntries(
      (await readFile(output, 'utf8'))
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    return { ...ran, outputs };
  }

  beforeAll(async () => {
    emulator = await startEmulator({ seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')) });
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-pr-flow-'));
    repo = join(scratch, 'infra');
    shims = join(scratch, 'bin');
    await mkdir(shims);
    // `docker run [--rm|--user U|-v V|-w W|-e NAME]... IMAGE ARGS...` runs the built CLI with ARGS.
    // The emulator here has no rate limit, so plan and apply get a budget that does not slow the test.
    await writeFile(
      join(shims, 'docker'),
      [
        '#!/bin/sh',
        'shift',
        'while [ $# -gt 0 ]; do case "$1" in --rm) shift;; --user|-v|-w|-e) shift 2;; *) break;; esac; done',
        'shift',
        'case "$1" in plan|apply) command="$1"; shift; set -- "$command" --rate-limit 100000/1s "$@";; esac',
        `exec "${process.execPath}" "${BUILT_CLI}" "$@"`,
        '',
      ].join('\n'),
    );
    await chmod(join(shims, 'docker'), 0o755);
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

    const validate = await spawn(
      'bash',
      ['-e', '-c', (await workflowScript('validate', 'Validate (no network, no secrets)')).trim()],
      repo,
      baseEnv(),
    );
    const plan = await step('plan', 'plan', secrets());
    const comment = await readFile(join(repo, 'plan.md'), 'utf8');

    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/^7 files valid \(306 entries\)$/m);
    expect(plan.outputs.exitcode).toBe('2');
    expect(comment.length).toBeLessThanOrEqual(60_000);
    expect(comment).toContain('**Plan: 300 to create, 0 to update, 0 to replace, 1 to delete.**');
    expect(comment.indexOf('`ip_policy_rules.scanner-block`')).toBeLessThan(comment.indexOf('pr-rule-0'));
    expect(comment).toContain('`manifests/partners.yaml:');
    expect(comment).toMatch(/_Not shown to stay under 60,000 characters: .*run `edgesync show plan\.json`/);
    expect(comment + plan.stdout + plan.stderr).not.toContain(OIDC_SECRET);

    // The merge applies the saved plan, the artifact the pull request kept.
    await git('checkout', '-q', 'main');
    await git('merge', '-q', '--no-ff', '-m', 'Merge partners', 'partners');
    await mkdir(join(repo, 'reviewed'), { recursive: true });
    await cp(join(repo, 'plan.json'), join(repo, 'reviewed/plan.json'));
    const merged = await step('apply', 'apply', { ...secrets(), DISPATCHED: 'false' });
    const after = await edgesync(['plan', 'manifests', '--owner', OWNER, '--detailed-exitcode']);

    expect(merged.outputs.exitcode, merged.stdout + merged.stderr).toBe('0');
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
    await git('commit', '-q', '-am', 'reword');
    const second = await step('plan', 'plan', secrets());
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
    await cp(join(repo, 'plan.json'), join(repo, 'reviewed/plan.json'));
    const direct = await edgesync([
      'apply',
      '--plan',
      'reviewed/plan.json',
      'manifests',
      '--owner',
      OWNER,
      '--yes',
    ]);
    const stale = await step('apply', 'apply', { ...secrets(), DISPATCHED: 'false' });
    const replan = await readFile(join(repo, 'replan.md'), 'utf8');

    expect(second.outputs.exitcode).toBe('2');
    expect(patched.status).toBe(200);
    expect(direct.code).toBe(3);
    expect(direct.stderr).toContain('changed since the plan was made');
    expect(stale.outputs.exitcode).toBe('3');
    expect(replan).toContain('**Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.**');
    expect(replan).toContain('-     description = "changed by hand"');
    expect(replan).toContain('+     description = "Office VPN"');
  }, 120_000);
});
