import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { findOnPath, shellPath } from '../support/shell-path.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const WORKFLOWS = join(ROOT, '.github', 'workflows');
const RELEASE = join(WORKFLOWS, 'release.yml');

/** A GitHub Actions expression, `${{ inner }}` (built so that it does not read as a template placeholder). */
function expression(inner: string): string {
  return ['$', `{{ ${inner} }}`].join('');
}

/** @action-validator/cli's entry point, run with this Node as a process. */
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

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | boolean>;
  env?: Record<string, string>;
}
interface Workflow {
  on: { push?: { tags?: string[]; branches?: string[] } };
  permissions: Record<string, string>;
  jobs: Record<
    string,
    { permissions?: Record<string, string>; steps: Step[]; needs?: string | string[]; uses?: string }
  >;
}

describe('.github/workflows/release.yml', () => {
  let workflow: Workflow;
  let text: string;
  let scratch: string;

  beforeAll(async () => {
    text = await readFile(RELEASE, 'utf8');
    workflow = parse(text) as Workflow;
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-workflow-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('every workflow passes action-validator', async () => {
    const files = (await readdir(WORKFLOWS)).filter((name) => /\.ya?ml$/.test(name));

    const results = await Promise.all(files.map((name) => actionValidator(join(WORKFLOWS, name))));

    expect(files).toContain('release.yml');
    expect(results.filter((result) => result.code !== 0).map((result) => result.output)).toEqual([]);
  });

  it('action-validator refuses a broken copy (the lint can fail)', async () => {
    const broken = join(scratch, 'release.yml');
    await writeFile(broken, text.replace('runs-on: ubuntu-latest', 'runs-onn: ubuntu-latest'));

    const result = await actionValidator(broken);

    expect(result.code).not.toBe(0);
    expect(result.output).toContain('runs-onn');
  });

  it('runs on version tags only, with no permissions but the job’s own', () => {
    const job = workflow.jobs.image;

    expect(Object.keys(workflow.on)).toEqual(['push']);
    expect(workflow.on.push?.tags).toEqual(['v*']);
    expect(workflow.on.push?.branches).toBeUndefined();
    expect(workflow.permissions).toEqual({});
    expect(job?.permissions).toEqual({ contents: 'read', packages: 'write', 'id-token': 'write' });
  });

  it('Dependabot keeps the pinned action SHAs, the npm packages and the base image current', async () => {
    const dependabot = parse(await readFile(join(ROOT, '.github', 'dependabot.yml'), 'utf8')) as {
      version: number;
      updates: { 'package-ecosystem': string; directory: string }[];
    };

    expect(dependabot.version).toBe(2);
    for (const ecosystem of ['github-actions', 'npm', 'docker']) {
      expect(dependabot.updates).toContainEqual(
        expect.objectContaining({ 'package-ecosystem': ecosystem, directory: '/' }),
      );
    }
  });

  it('builds nothing until the tests pass: the image job needs the job that runs ci.yml', async () => {
    const ci = parse(await readFile(join(WORKFLOWS, 'ci.yml'), 'utf8')) as {
      on: Record<string, unknown>;
      permissions: Record<string, string>;
      jobs: Record<string, { steps: Step[] }>;
    };
    const runs = Object.values(ci.jobs)
      .flatMap((job) => job.steps)
      .map((step) => step.run ?? '');
    const tests = Object.entries(workflow.jobs).find(([, job]) => job.uses === './.github/workflows/ci.yml');

    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push', 'workflow_call']);
    expect(ci.permissions).toEqual({});
    expect(runs).toEqual(
      expect.arrayContaining(['npm ci --no-audit --no-fund', 'npm test', 'npm run test:reliability']),
    );
    expect(tests).toBeDefined();
    expect([workflow.jobs.image?.needs].flat()).toContain(tests?.[0]);
  });

  it('pins every action by commit SHA, with the tag in a comment', async () => {
    const ci = await readFile(join(WORKFLOWS, 'ci.yml'), 'utf8');
    const uses = [...`${text}\n${ci}`.matchAll(/^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/gm)].filter(
      ([, action]) => !action?.startsWith('./'),
    );

    expect(uses.length).toBeGreaterThanOrEqual(9);
    for (const [, action, comment] of uses) {
      expect(action).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
      expect(comment).toMatch(/^\s+# v\d+\.\d+\.\d+$/);
    }
  });

  it('builds linux/amd64 and linux/arm64, pushes to ghcr.io/<this repository> with provenance and an SBOM, and signs the pushed digest keyless', () => {
    const steps = workflow.jobs.image?.steps ?? [];
    const meta = steps.find((step) => step.uses?.startsWith('docker/metadata-action@'));
    const build = steps.find((step) => step.uses?.startsWith('docker/build-push-action@'));
    const signIndex = steps.findIndex((step) => /\bcosign sign\b/.test(step.run ?? ''));
    const sign = steps[signIndex];

    expect(meta?.with?.images).toBe(`ghcr.io/${expression('github.repository')}`);
    expect(meta?.with?.tags).toContain('type=semver,pattern={{version}}');
    expect(
      steps.some(
        (step) => step.uses?.startsWith('docker/login-action@') && step.with?.registry === 'ghcr.io',
      ),
    ).toBe(true);
    expect(steps.some((step) => step.uses?.startsWith('docker/setup-qemu-action@'))).toBe(true);
    expect(build?.with?.platforms).toBe('linux/amd64,linux/arm64');
    expect(build?.with?.push).toBe(true);
    expect(build?.with?.tags).toBe(expression('steps.meta.outputs.tags'));
    expect(build?.with?.provenance).toBe('mode=max');
    expect(build?.with?.sbom).toBe(true);
    expect(steps.findIndex((step) => step.uses?.startsWith('sigstore/cosign-installer@'))).toBeLessThan(
      signIndex,
    );
    expect(sign?.env?.DIGEST).toBe(expression(`steps.${build?.id}.outputs.digest`));
    expect(sign?.run).toMatch(/cosign sign --yes "\$image@\$DIGEST"/);
    // Keyless: no key is read from a secret.
    expect(sign?.run).not.toMatch(/--key\b/);
    // Then checked with the identity docs/operations.md tells users to expect.
    expect(
      steps
        .slice(signIndex + 1)
        .some((step) => /\bcosign verify\b.*--certificate-oidc-issuer/s.test(step.run ?? '')),
    ).toBe(true);
  });

  it('refuses a tag that is not the package version', async () => {
    const check = workflow.jobs.image?.steps.find((step) => step.run?.includes('package.json'))?.run ?? '';
    const version = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;

    const runCheck = (tag: string) =>
      run(findOnPath('bash', shellPath()), ['-c', check], {
        cwd: ROOT,
        env: { ...process.env, PATH: shellPath(), GITHUB_REF_NAME: tag },
      }).then(
        () => 0,
        (error: { code?: number }) => error.code ?? 1,
      );

    expect(await runCheck(`v${version}`)).toBe(0);
    expect(await runCheck(`v${version}.1`)).toBe(1);
  });
});
