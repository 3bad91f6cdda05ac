import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { type CliRun, runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';
import { listAll } from './apply-harness.js';
import { inspectClient, ROOT, writes } from './cli-process.js';

const SEED = join(ROOT, 'examples/emulator-seed.yaml');
const OFFICE_POLICY = 'ipp_OfficeVpnPolicy000000000001';
const BLOCK_POLICY = 'ipp_BlockListPolicy000000000001';

interface Rule {
  readonly id: string;
  readonly cidr: string;
  readonly action: string;
  readonly description?: string;
  readonly metadata?: string;
}

/**
 * `apply --plan` and what stands around the plan: the reviewer approved an
 * allow rule in an IP policy whose other rules they saw; a rule added to
 * that policy by hand before the merge (an unmanaged `allow`) changes who
 * gets in without touching anything the plan writes. The plan records the
 * policy's unmanaged rules as fingerprints; apply says which changed and
 * how, and refuses with --refuse-context-changes.
 */
describe('apply --plan reports objects it does not manage that changed around the plan (CLI process)', () => {
  let emulator: RunningEmulator;
  let dir: string;

  beforeEach(async () => {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED) });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-context-'));
    await mkdir(join(dir, 'manifests'));
    await writeFile(
      join(dir, 'manifests/rules.yaml'),
      `version: 1\nip_policy_rules:\n  partner:\n    ip_policy_id: ${OFFICE_POLICY}\n    cidr: 198.51.100.0/24\n    action: allow\n    description: partner office\n`,
    );
  });
  afterEach(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  const edgesync = (args: readonly string[]): Promise<CliRun> =>
    runEdgesyncProcess(args, { emulator, cwd: dir, limitMs: 60_000 });
  const plan = async (): Promise<void> => {
    const run = await runEdgesyncInProcess(['plan', 'manifests', '--out', 'plan.json'], {
      emulator,
      cwd: dir,
    });
    if (run.code !== 0) throw new Error(`plan --out: exit ${run.code}\n${run.stderr}`);
  };
  const byHand = async (
    method: 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: Record<string, unknown>,
  ): Promise<Rule> =>
    (
      await inspectClient(emulator).request<Rule>(
        body === undefined ? { method, path } : { method, path, body },
      )
    ).body;
  const rules = (): Promise<Rule[]> =>
    listAll<Rule>({ inspect: inspectClient(emulator) }, '/ip_policy_rules', 'ip_policy_rules');

  it('warns about an unmanaged allow rule added to the policy the plan writes to, which one and how, and applies', async () => {
    await plan();
    const added = await byHand('POST', '/ip_policy_rules', {
      ip_policy_id: OFFICE_POLICY,
      cidr: '10.99.0.0/16',
      action: 'allow',
      description: 'added by hand',
    });

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests']);

    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain(
      `context: ip_policy_rules ${added.id} added to IP policy ${OFFICE_POLICY}: now description added by hand, cidr 10.99.0.0/16, action allow, not managed by edgesync`,
    );
    expect(apply.stderr).toContain(
      'warning: plan.json: 1 object(s) edgesync does not manage changed since the plan was made',
    );
    expect((await rules()).map((rule) => rule.cidr)).toContain('198.51.100.0/24');
  });

  it('with --refuse-context-changes, refuses (exit 3) and sends nothing', async () => {
    await plan();
    await byHand('POST', '/ip_policy_rules', {
      ip_policy_id: OFFICE_POLICY,
      cidr: '10.99.0.0/16',
      action: 'allow',
    });
    const before = await writes(emulator);

    const apply = await edgesync([
      'apply',
      '--plan',
      'plan.json',
      '--yes',
      'manifests',
      '--refuse-context-changes',
    ]);

    expect(apply.code, apply.stderr).toBe(3);
    expect(apply.stderr).toContain('nothing was sent (--refuse-context-changes)');
    expect(await writes(emulator)).toBe(before);
  });

  it('says how each unmanaged rule of the policy changed: changed, removed', async () => {
    const [first, second] = await Promise.all(
      ['10.98.0.0/16', '10.97.0.0/16'].map((cidr) =>
        byHand('POST', '/ip_policy_rules', { ip_policy_id: OFFICE_POLICY, cidr, action: 'deny' }),
      ),
    );
    if (first === undefined || second === undefined) throw new Error('expected two rules');
    await plan();
    await byHand('PATCH', `/ip_policy_rules/${first.id}`, { description: 'now widened elsewhere' });
    await byHand('DELETE', `/ip_policy_rules/${second.id}`);

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests']);

    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain(
      `context: ip_policy_rules ${first.id} changed in IP policy ${OFFICE_POLICY}: now description now widened elsewhere, cidr 10.98.0.0/16, action deny`,
    );
    expect(apply.stderr).toContain(
      `context: ip_policy_rules ${second.id} removed from IP policy ${OFFICE_POLICY}`,
    );
  });

  it('says nothing of a rule added to a policy the plan does not write to', async () => {
    await plan();
    await byHand('POST', '/ip_policy_rules', {
      ip_policy_id: BLOCK_POLICY,
      cidr: '10.96.0.0/16',
      action: 'deny',
    });

    const apply = await edgesync([
      'apply',
      '--plan',
      'plan.json',
      '--yes',
      'manifests',
      '--refuse-context-changes',
    ]);

    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).not.toContain('context:');
  });
});
