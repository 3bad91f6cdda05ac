import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { type CliRun, runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { listAll } from './apply-harness.js';
import { inspectClient, ROOT, writes } from './cli-process.js';

/**
 * `apply --plan FILE` as a process against the emulator, with files edited
 * as someone who can change a CI artifact would: the file is a claim that
 * is checked against the manifests and the account, never a script.
 */

const SEED = join(ROOT, 'examples/emulator-seed.yaml');
const EXAMPLES = join(ROOT, 'examples/manifests');
const BLOCK_POLICY = 'ipp_BlockListPolicy000000000001';
const OFFICE_POLICY = 'ipp_OfficeVpnPolicy000000000001';
const WEB_EDGE = 'edghts_WebEdge00000000000000000001';
const SECRET = 'oidc-client-secret-that-must-never-show';
const PLAN_KEY = 'claims-test-plan-key-0123456789abcdef\n';

interface SavedAction {
  key: string;
  op: string;
  kind: string;
  name: string;
  change: string;
  method: string;
  path: string;
  body?: Record<string, unknown>;
  sensitive_paths: string[];
  depends_on: string[];
  marker: null | { owner: string; name: string };
  source: null;
}

interface SavedFile {
  plan: { actions: SavedAction[]; refusal: unknown };
  safety: unknown;
  narrowing: { targets: string[]; excludes: string[] };
}

interface Item {
  readonly id: string;
  readonly metadata?: string;
  readonly description?: string;
  readonly cidr?: string;
}

function injected(
  parts: Pick<SavedAction, 'key' | 'op' | 'kind' | 'method' | 'path'> & { body?: Record<string, unknown> },
): SavedAction {
  const name = parts.key.slice(parts.key.lastIndexOf('.') + 1);
  return {
    name,
    change: parts.key.slice(parts.key.indexOf(':') + 1),
    sensitive_paths: [],
    depends_on: [],
    marker: null,
    source: null,
    ...parts,
  };
}

describe('apply --plan checks the saved plan against the manifests and the account (CLI process)', () => {
  let emulator: RunningEmulator;
  let dir: string;

  beforeEach(async () => {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED) });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-claims-'));
    await mkdir(join(dir, 'manifests'));
    await writeFile(join(dir, 'plan.key'), PLAN_KEY, { mode: 0o600 });
  });

  afterEach(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  // The plan and apply jobs share a plan key, as docs/apply.md sets them up.
  const env = { OIDC_CLIENT_SECRET: SECRET, EDGESYNC_PLAN_KEY_FILE: 'plan.key' };
  /**
   * The subject, in this process: these promise what is sent, said and exited with, which the
   * command line and its one exit-code table decide; apply-command.test.ts holds exits 3 and 4 as a process.
   */
  const edgesync = (args: readonly string[]): Promise<CliRun> =>
    runEdgesyncInProcess(args, { emulator, cwd: dir, env });
  /** The arrangement: in this process, to keep the file fast. */
  const arrange = async (args: readonly string[], expected = 0): Promise<CliRun> => {
    const run = await runEdgesyncInProcess(args, { emulator, cwd: dir, env });
    if (run.code !== expected) throw new Error(`edgesync ${args.join(' ')}: exit ${run.code}\n${run.stderr}`);
    return run;
  };
  const manifests = (text: string): Promise<void> => writeFile(join(dir, 'manifests/all.yaml'), text);
  const readPlan = async (): Promise<SavedFile> =>
    JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as SavedFile;
  const writePlan = (file: SavedFile): Promise<void> =>
    writeFile(join(dir, 'plan.json'), JSON.stringify(file, null, 2));
  const list = (path: string, key: string): Promise<Item[]> =>
    listAll<Item>({ inspect: inspectClient(emulator) }, path, key);
  const rules = (): Promise<Item[]> => list('/ip_policy_rules', 'ip_policy_rules');
  const named = (items: readonly Item[], name: string): Item | undefined =>
    items.find((item) => item.metadata?.includes(`"name":"${name}"`));

  const PROTECTED = `version: 1
ip_policy_rules:
  block:
    ip_policy_id: ${BLOCK_POLICY}
    cidr: 198.51.100.0/24
    action: deny
    protect: true
  keep:
    ip_policy_id: ${BLOCK_POLICY}
    cidr: 192.0.2.0/24
    action: deny
reserved_addrs:
  bastion:
    description: SSH bastion
    region: eu
    protect: true
`;

  it('refuses requests added by hand to a plan of no changes (exit 3, nothing sent), and show prints them', async () => {
    await manifests(PROTECTED);
    await arrange(['apply', 'manifests', '--yes']);
    const unmanaged = await inspectClient(emulator).request<Item>({
      method: 'POST',
      path: '/ip_policy_rules',
      body: { ip_policy_id: BLOCK_POLICY, cidr: '203.0.113.0/24', action: 'deny', description: 'not ours' },
    });
    const block = named(await rules(), 'block');
    const [bastion] = await list('/reserved_addrs', 'reserved_addrs');
    await arrange(['plan', 'manifests', '--out', 'plan.json']);
    const file = await readPlan();
    file.plan.actions.push(
      injected({
        key: 'delete:ip_policy_rules.not-ours',
        op: 'delete',
        kind: 'ip_policy_rules',
        method: 'DELETE',
        path: `/ip_policy_rules/${unmanaged.body.id}`,
      }),
      injected({
        key: 'delete:reserved_addrs.bastion',
        op: 'delete',
        kind: 'reserved_addrs',
        method: 'DELETE',
        path: `/reserved_addrs/${bastion?.id}`,
      }),
      injected({
        key: 'update:ip_policy_rules.block',
        op: 'update',
        kind: 'ip_policy_rules',
        method: 'PATCH',
        path: `/ip_policy_rules/${block?.id}`,
        body: { cidr: '198.51.100.7/32' },
      }),
      injected({
        key: 'create:ip_policy_rules.everyone',
        op: 'create',
        kind: 'ip_policy_rules',
        method: 'POST',
        path: '/ip_policy_rules',
        body: { ip_policy_id: OFFICE_POLICY, cidr: '0.0.0.0/0', action: 'allow' },
      }),
    );
    await writePlan(file);
    const before = { writes: await writes(emulator), rules: await rules() };

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests']);
    const show = await edgesync(['show', 'plan.json']);
    const markdown = await arrange(['show', 'plan.json', '--format', 'markdown']);

    expect(apply.code, apply.stderr).toBe(3);
    expect(await writes(emulator)).toBe(before.writes);
    expect(await rules()).toEqual(before.rules);
    expect(apply.stderr).toContain('nothing was sent');
    for (const key of file.plan.actions.map((action) => action.key)) expect(apply.stderr).toContain(key);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('No changes.');
    expect(show.stdout).toContain('This file holds 4 request(s).');
    expect(show.stdout).toContain(
      'sends none of them as written: it plans again from the manifests and the account, and sends only what that plan confirms',
    );
    expect(show.stdout).toContain(`DELETE /ip_policy_rules/${unmanaged.body.id}`);
    expect(show.stdout).toContain(`DELETE /reserved_addrs/${bastion?.id}`);
    expect(show.stdout).toMatch(
      new RegExp(`PATCH /ip_policy_rules/${block?.id}\\n\\{\\n  "cidr": "198\\.51\\.100\\.7/32"`),
    );
    expect(show.stdout).toMatch(
      /POST \/ip_policy_rules\n\{[^}]*"cidr": "0\.0\.0\.0\/0",\n {2}"action": "allow"/,
    );
    expect(markdown.stdout).toContain('**This file holds 4 request(s).**');
    expect(markdown.stdout).toContain(`DELETE /reserved_addrs/${bastion?.id}`);
  }, 90_000);

  it('judges safety by the plan made again, not by the file: a refused plan with its verdict nulled stays refused (exit 4)', async () => {
    await manifests(PROTECTED);
    await arrange(['apply', 'manifests', '--yes']);
    await manifests(PROTECTED.replace(/ {2}block:\n(?: {4}.*\n)+/, ''));
    await arrange(['plan', 'manifests', '--out', 'plan.json'], 4);
    const file = await readPlan();
    file.safety = null;
    file.plan.refusal = null;
    await writePlan(file);
    const before = await writes(emulator);

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', '--force', 'manifests']);

    expect(file.plan.actions.map((action) => action.key)).toEqual(['delete:ip_policy_rules.block']);
    expect(apply.code, apply.stderr).toBe(4);
    expect(apply.stderr).toContain('protect: true forbids deleting ip_policy_rules.block');
    expect(await writes(emulator)).toBe(before);
    expect(named(await rules(), 'block')).toBeDefined();
  });

  it('refills no secret outside the fields the manifests hold it in: a hash moved into a plain field is refused', async () => {
    await manifests(`version: 1
https_edges:
  web:
    id: ${WEB_EDGE}
    hostports: [web.example.com:443]
    description: web front door
    routes:
      - match_type: path_prefix
        match: /app
        oidc:
          issuer: https://accounts.example.com
          client_id: edge-app
          client_secret: { env: OIDC_CLIENT_SECRET }
`);
    await arrange(['plan', 'manifests', '--out', 'plan.json']);
    const file = await readPlan();
    const oidc = file.plan.actions.find((action) => action.sensitive_paths.length > 0);
    const patch = file.plan.actions.find((action) => action.method === 'PATCH');
    const hash = oidc?.body?.client_secret;
    if (patch?.body === undefined || hash === undefined) throw new Error('expected an OIDC PUT and a PATCH');
    patch.body.description = hash;
    patch.sensitive_paths.push('/description');
    await writePlan(file);
    const before = await writes(emulator);

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests']);
    const later = await edgesync(['plan', 'manifests']);
    const edge = await inspectClient(emulator).request<Item>({
      method: 'GET',
      path: `/edges/https/${WEB_EDGE}`,
    });

    expect(hash).toMatchObject({
      $sensitive: expect.stringMatching(/^hmac-sha256:[0-9a-f]{16}:[0-9a-f]{64}$/),
    });
    expect(apply.code, apply.stderr).toBe(3);
    expect(apply.stderr).toContain(
      `${patch.key}: PATCH /edges/https/${WEB_EDGE}: the plan made now has another body`,
    );
    expect(await writes(emulator)).toBe(before);
    expect(edge.body.description).toBe('web');
    expect(`${apply.stdout}${apply.stderr}${later.stdout}${later.stderr}`).not.toContain(SECRET);
  });

  it('applied twice, the second run says "already applied" and creates nothing', async () => {
    await mkdir(join(dir, 'manifests/certs'));
    await writeFile(
      join(dir, 'manifests/certs/root.pem'),
      await readFile(join(EXAMPLES, 'certs/corp-root.pem'), 'utf8'),
    );
    await manifests(`${PROTECTED}    endpoint_configuration_id: ec_BastionEndpointConfig000001
certificate_authorities:
  root:
    ca_pem_file: certs/root.pem
`);
    const planned = await arrange(['plan', 'manifests', '--out', 'plan.json']);

    const first = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests']);
    const afterFirst = await writes(emulator);
    const second = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests']);

    expect(planned.stderr).toContain('apply it with `edgesync apply --plan plan.json manifests`');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Apply complete: 4 created');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(
      'Already applied: the account already holds every change of plan.json; nothing was sent.',
    );
    expect(second.stderr).toContain('5 action(s) already applied');
    expect(await writes(emulator)).toBe(afterFirst);
    expect(await rules()).toHaveLength(2);
    expect(await list('/reserved_addrs', 'reserved_addrs')).toHaveLength(1);
    expect(await list('/certificate_authorities', 'certificate_authorities')).toHaveLength(1);
  });

  it('after the change went live another way (the daemon), exits 0, "already applied", and creates nothing (every kind of the examples)', async () => {
    await arrange(['plan', EXAMPLES, '--out', 'plan.json']);
    await arrange(['apply', EXAMPLES, '--yes']);
    const before = await writes(emulator);

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', EXAMPLES]);

    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Already applied');
    expect(apply.stderr).toContain('12 action(s) already applied');
    expect(await writes(emulator)).toBe(before);
    expect(await rules()).toHaveLength(2);
    expect(await list('/reserved_addrs', 'reserved_addrs')).toHaveLength(1);
    expect(await list('/certificate_authorities', 'certificate_authorities')).toHaveLength(1);
  });

  it('after part of it went live, sends the rest and says which part was already applied', async () => {
    await manifests(PROTECTED);
    await arrange(['plan', 'manifests', '--out', 'plan.json']);
    await arrange(['apply', 'manifests', '--yes', '--target', 'ip_policy_rules.keep']);
    const before = await writes(emulator);

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests']);

    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain('1 action(s) already applied');
    expect(apply.stderr).toContain(
      'create:ip_policy_rules.keep; the other 2 are confirmed by planning again',
    );
    expect(apply.stdout).toContain('Apply complete: 2 created');
    expect((await writes(emulator)) - before).toBe(2);
    expect(await rules()).toHaveLength(2);
  });

  it('plans with the narrowing the file recorded, which the file cannot widen, for the paths and owner of the command line', async () => {
    await manifests(PROTECTED);
    await arrange(['plan', 'manifests', '--out', 'plan.json', '--target', 'ip_policy_rules.keep']);
    const narrowed = await readPlan();
    await writePlan({ ...narrowed, narrowing: { targets: [], excludes: [] } });
    const widened = await arrange(['apply', '--plan', 'plan.json', '--yes', 'manifests'], 3);
    await writePlan(narrowed);
    const otherOwner = await arrange(['apply', '--plan', 'plan.json', '--owner', 'other', 'manifests'], 3);
    const noPath = await arrange(['apply', '--plan', 'plan.json', '--yes'], 3);
    const nothingSent = await writes(emulator);

    const apply = await edgesync(['apply', '--plan', 'plan.json', '--yes', 'manifests']);

    expect(narrowed.narrowing).toEqual({ targets: ['ip_policy_rules.keep'], excludes: [] });
    expect(widened.code).toBe(3);
    expect(widened.stderr).toContain(
      'create:reserved_addrs.bastion: POST /reserved_addrs: the plan made now has this action, which is not in the saved plan',
    );
    expect(otherOwner.code).toBe(3);
    expect(otherOwner.stderr).toContain(
      'the plan was made from manifests for owner "default", and this command names manifests for owner "other"',
    );
    expect(noPath.code).toBe(3);
    expect(noPath.stderr).toContain('this command names . (no path given)');
    expect(nothingSent).toBe(0);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 1 created');
    expect((await rules()).map((rule) => rule.cidr)).toEqual(['192.0.2.0/24']);
  });
});
