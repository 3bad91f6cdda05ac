import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const WORKFLOW = join(ROOT, 'deploy', 'github-actions', 'edgesync.yml');

/**
 * The actions the example uses, at the commit of each release tag. Each SHA
 * was found in many public workflows pinning that tag (the search index of
 * public repositories), not read from GitHub itself.
 */
const PINNED: Readonly<Record<string, string>> = {
  'actions/checkout': '11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2',
  'actions/github-script': '60a0d83039c74a4aee543508d2ffcb1c3799cdea # v7.0.1',
  'actions/upload-artifact': 'ea165f8d65b6e75b540449e92b4886f43607fa02 # v4.6.2',
  'actions/download-artifact': 'd3f86a106a0bac45b974a628896c90dbdf5c8093 # v4.3.0',
};

interface Step {
  readonly name?: string;
  readonly id?: string;
  readonly if?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, string>;
  readonly env?: Record<string, string>;
}
interface Job {
  readonly if: string;
  readonly needs?: string;
  readonly permissions?: Record<string, string>;
  readonly steps: readonly Step[];
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly permissions: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

function actionValidatorCli(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@action-validator/cli/package.json');
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return join(dirname(manifest), bin['action-validator'] ?? 'cli.mjs');
}

async function actionValidator(path: string): Promise<{ code: number; output: string }> {
  return run(process.execPath, [actionValidatorCli(), path]).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? 1,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
}

function job(workflow: Workflow, name: string): Job {
  const found = workflow.jobs[name];
  if (found === undefined) throw new Error(`no job ${name}`);
  return found;
}

describe('deploy/github-actions/edgesync.yml: the pull-request flow', () => {
  let text: string;
  let workflow: Workflow;
  let scratch: string;

  beforeAll(async () => {
    text = await readFile(WORKFLOW, 'utf8');
    workflow = parse(text) as Workflow;
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-gha-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('passes @action-validator/cli, which refuses a broken copy', async () => {
    const broken = join(scratch, 'edgesync.yml');
    await writeFile(broken, text.replace('runs-on: ubuntu-latest', 'runs-onn: ubuntu-latest'));

    const good = await actionValidator(WORKFLOW);
    const bad = await actionValidator(broken);

    expect(good.code, good.output).toBe(0);
    expect(bad.code).not.toBe(0);
    expect(bad.output).toContain('runs-onn');
  });

  it('lints with a validator that needs no download: a pinned devDependency, no install script, its wasm shipped', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
    };
    const require = createRequire(import.meta.url);

    const core = dirname(require.resolve('@action-validator/core/package.json'));

    expect(pkg.devDependencies['@action-validator/cli']).toBe('0.6.0');
    for (const name of ['@action-validator/cli', '@action-validator/core']) {
      expect(lock.packages[`node_modules/${name}`]?.version).toBe('0.6.0');
      expect(lock.packages[`node_modules/${name}`]?.hasInstallScript).toBeUndefined();
    }
    expect(existsSync(join(core, 'action_validator_bg.wasm'))).toBe(true);
  });

  it('pins every action by the commit SHA of its release tag', () => {
    const uses = [...text.matchAll(/^\s*(?:-\s+)?uses:\s*([^@\s]+)@(\S+)(.*)$/gm)];

    expect(uses.length).toBeGreaterThanOrEqual(8);
    for (const [, action, sha, comment] of uses) {
      expect(`${sha}${comment}`.replace(/\s+/g, ' ').trim()).toBe(PINNED[action ?? '']);
    }
  });

  it('validates every pull request with no secret, forks included', () => {
    const validate = job(workflow, 'validate');

    expect(validate.if).toBe("github.event_name == 'pull_request'");
    expect(JSON.stringify(validate)).not.toContain('secrets.');
    expect(validate.steps.map((step) => step.run ?? '').join('\n')).toMatch(/\bvalidate manifests\b/);
  });

  it('plans a pull request from this repository, saves plan.json as an artifact and comments the saved plan', () => {
    const plan = job(workflow, 'plan');
    const script = plan.steps.find((step) => step.id === 'plan')?.run ?? '';
    const upload = plan.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'));

    expect(plan.if).toContain('github.event.pull_request.head.repo.full_name == github.repository');
    expect(script).toMatch(/\bplan manifests\b.*--out plan\.json/);
    expect(script).toMatch(/\bshow plan\.json --format markdown\b/);
    expect(upload?.with?.path).toBe('plan.json');
    expect(plan.steps.some((step) => step.uses?.startsWith('actions/github-script@'))).toBe(true);
  });

  it('tells a fork why it gets no plan, running nothing of the fork', () => {
    const notice = job(workflow, 'fork-notice');
    const script = notice.steps.map((step) => step.with?.script ?? '').join('\n');

    expect(notice.if).toContain("github.event_name == 'pull_request_target'");
    expect(notice.if).toContain('github.event.pull_request.head.repo.full_name != github.repository');
    expect(notice.steps.every((step) => step.run === undefined)).toBe(true);
    expect(notice.steps.some((step) => step.uses?.startsWith('actions/checkout@'))).toBe(false);
    expect(notice.permissions).toEqual({ 'pull-requests': 'write' });
    expect(script).toContain('no repository secrets');
  });

  it('applies on merge exactly the plan saved on the pull request, and posts a stale plan or a failure', () => {
    const apply = job(workflow, 'apply');
    const download = apply.steps.find((step) => step.uses?.startsWith('actions/download-artifact@'));
    const script = apply.steps.find((step) => step.id === 'apply')?.run ?? '';
    const tell = apply.steps.find((step) => step.name === 'Tell the pull request');

    expect(download?.with?.['run-id']).toContain('steps.reviewed.outputs.run-id');
    expect(script).toMatch(/\bapply --plan reviewed\/plan\.json manifests --owner "\$EDGESYNC_OWNER" --yes/);
    expect(script).not.toMatch(/\bapply manifests\b/);
    expect(script).toMatch(
      /if \[ "\$code" -eq 3 \]; then[\s\S]*plan manifests[\s\S]*show plan\.json --format markdown/,
    );
    expect(tell?.if).toContain("steps.apply.outputs.exitcode != '0'");
    expect(tell?.with?.script).toContain('the plan changed since review');
    expect(tell?.with?.script).toContain('edgesync apply failed (exit ${code');
    expect(workflow.permissions).toEqual({});
  });
});
