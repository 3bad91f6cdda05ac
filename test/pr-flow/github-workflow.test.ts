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
const ACTION = join(ROOT, 'action.yml');

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
  'github/codeql-action/upload-sarif': '5d4e8d1aca955e8d8589aabd499c5cae939e33c7 # v4.31.9',
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
  readonly environment?: string;
  readonly needs?: string;
  readonly permissions?: Record<string, string>;
  readonly steps: readonly Step[];
}
interface Action {
  readonly inputs: Record<string, { readonly default?: string; readonly required?: boolean }>;
  readonly runs: { readonly using: string; readonly steps: readonly Step[] };
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

/** A GitHub Actions expression, `${{ inner }}` (built so that it does not read as a template placeholder). */
function expression(inner: string): string {
  return ['$', `{{ ${inner} }}`].join('');
}

function job(workflow: Workflow, name: string): Job {
  const found = workflow.jobs[name];
  if (found === undefined) throw new Error(`no job ${name}`);
  return found;
}

describe('deploy/github-actions/edgesync.yml and action.yml: the two flows', () => {
  let text: string;
  let actionText: string;
  let workflow: Workflow;
  let action: Action;
  let scratch: string;

  const actionSteps = (): readonly Step[] => action.runs.steps;
  const usesOfOurAction = (name: string): readonly Step[] =>
    job(workflow, name).steps.filter((step) => step.uses?.startsWith('edgesync/edgesync@'));

  beforeAll(async () => {
    text = await readFile(WORKFLOW, 'utf8');
    actionText = await readFile(ACTION, 'utf8');
    workflow = parse(text) as Workflow;
    action = parse(actionText) as Action;
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-gha-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('both pass @action-validator/cli, which refuses a broken copy of each', async () => {
    const brokenWorkflow = join(scratch, 'edgesync.yml');
    const brokenAction = join(scratch, 'action.yml');
    await writeFile(brokenWorkflow, text.replace('runs-on: ubuntu-latest', 'runs-onn: ubuntu-latest'));
    await writeFile(brokenAction, actionText.replace('using: composite', 'usingg: composite'));

    const results = await Promise.all([WORKFLOW, ACTION, brokenWorkflow, brokenAction].map(actionValidator));

    expect(results[0]?.code, results[0]?.output).toBe(0);
    expect(results[1]?.code, results[1]?.output).toBe(0);
    expect(results[2]?.code).not.toBe(0);
    expect(results[2]?.output).toContain('runs-onn');
    expect(results[3]?.code).not.toBe(0);
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

  it("pins every third-party action by the commit SHA of its release tag, and ours at the package's release tag", async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const uses = [...`${text}\n${actionText}`.matchAll(/^\s*(?:-\s+)?uses:\s*([^@\s]+)@(\S+)(.*)$/gm)];
    const ours = uses.filter(([, name]) => name === 'edgesync/edgesync');

    expect(uses.length - ours.length).toBeGreaterThanOrEqual(7);
    expect(ours.length).toBe(3);
    for (const [, name, ref, comment] of uses) {
      if (name === 'edgesync/edgesync') expect(ref).toBe(`v${version}`);
      else expect(`${ref}${comment}`.replace(/\s+/g, ' ').trim()).toBe(PINNED[name ?? '']);
    }
  });

  it('action.yml: a composite action whose logic is our script, taking the command, the flow, the manifests, the owner and the daemon', () => {
    const run = actionSteps().find((step) => step.id === 'run');

    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining([
        'command',
        'flow',
        'manifests',
        'owner',
        'daemon-url',
        'instance',
        'wait-timeout',
        'image',
      ]),
    );
    expect(action.inputs.flow?.default).toBe('daemon-applies');
    expect(run?.run).toContain('scripts/action/edgesync-action.mjs" run');
    expect(run?.env?.INPUT_COMMAND).toBe(expression('inputs.command'));
    expect(run?.env?.INPUT_FLOW).toBe(expression('inputs.flow'));
    // The key reaches edgesync as EDGE_API_KEY only, never as an INPUT_ variable left in the environment.
    expect(run?.run).toContain('unset INPUT_API_KEY');
  });

  it('action.yml: the plan artifact is uploaded when the script saved it, downloaded from the run that planned the merged head, and SARIF is uploaded for validate', () => {
    const upload = actionSteps().find((step) => step.uses?.startsWith('actions/upload-artifact@'));
    const download = actionSteps().find((step) => step.uses?.startsWith('actions/download-artifact@'));
    const sarif = actionSteps().find((step) => step.uses?.startsWith('github/codeql-action/upload-sarif@'));
    const reviewed = actionSteps().find((step) => step.id === 'reviewed');

    expect(upload?.if).toContain("steps.run.outputs.saved == 'true'");
    expect(upload?.with?.path).toBe('edgesync-plan/plan.json');
    expect(reviewed?.run).toContain('edgesync-action.mjs" find-reviewed');
    expect(download?.with?.['run-id']).toBe(expression('steps.reviewed.outputs.run-id'));
    expect(download?.with?.path).toBe('edgesync-plan');
    expect(sarif?.if).toContain("inputs.command == 'validate'");
    expect(sarif?.with?.sarif_file).toBe(expression('steps.run.outputs.sarif'));
  });

  it('validates every pull request with no secret, forks included', () => {
    const validate = job(workflow, 'validate');

    expect(validate.if).toBe("github.event_name == 'pull_request'");
    expect(JSON.stringify(validate)).not.toContain('secrets.');
    expect(usesOfOurAction('validate').map((step) => step.with?.command)).toEqual(['validate']);
  });

  it('plans a pull request from this repository with the action, in the flow the workflow names', () => {
    const plan = job(workflow, 'plan');
    const step = usesOfOurAction('plan')[0];

    expect(plan.if).toContain('github.event.pull_request.head.repo.full_name == github.repository');
    expect(step?.with?.command).toBe('plan');
    expect(step?.with?.flow).toBe(expression('env.EDGESYNC_FLOW'));
    expect(step?.with?.['api-key']).toBe(expression('secrets.EDGE_API_KEY'));
    expect(plan.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
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

  it('on a merge, waits for the daemon (daemon-applies) or applies the reviewed plan (ci-applies): one env value picks the flow', () => {
    const merge = job(workflow, 'merge');
    const step = usesOfOurAction('merge')[0];
    const env = (workflow as unknown as { env: Record<string, string> }).env;

    expect(merge.if).toContain("github.ref == 'refs/heads/main'");
    expect(merge.if).toContain("github.event_name == 'workflow_dispatch'");
    expect(merge.environment).toBe('production');
    expect(env.EDGESYNC_FLOW).toBe('daemon-applies');
    expect(step?.with?.command).toBe(expression("env.EDGESYNC_FLOW == 'ci-applies' && 'apply' || 'wait'"));
    // daemon-applies waits through the commit status the daemon posts: no route to the daemon, statuses: read.
    expect(step?.with?.['daemon-url']).toBe(
      expression("env.EDGESYNC_FLOW == 'ci-applies' && vars.EDGESYNC_DAEMON_URL || ''"),
    );
    expect(merge.permissions).toMatchObject({ statuses: 'read' });
    expect(text).not.toMatch(/--force/);
    expect(workflow.permissions).toEqual({});
  });
});
