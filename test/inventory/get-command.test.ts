import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';
import { callService, listRules, rulesManifest } from '../watch/daemon-process.js';

const POLICY = 'ipp_GetCommandTestPolicy0000001';

interface Listed {
  readonly kind: string;
  readonly name: string;
  readonly id: string | null;
  readonly state: string;
  readonly reason: string | null;
  readonly fields: string[];
  readonly source: string | null;
}

describe('edgesync get, against the account', () => {
  let emulator: RunningEmulator;
  let dir: string;
  const cli = (args: readonly string[]) => runEdgesyncInProcess(args, { emulator, cwd: dir });
  const stats = async () =>
    ((await callService(emulator, 'GET', '/_emulator/stats')).body as { total: number }).total;
  const write = (rules: Parameters<typeof rulesManifest>[1]) =>
    writeFile(join(dir, 'manifests', 'rules.yaml'), rulesManifest(POLICY, rules));

  beforeEach(async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-get-'));
    await mkdir(join(dir, 'manifests'));
    await write({
      office: { cidr: '203.0.113.0/24' },
      partner: { cidr: '198.51.100.0/24' },
      old: { cidr: '192.0.2.0/24', action: 'deny' },
    });
    const applied = await cli(['apply', 'manifests', '--yes', '--owner', 'team-a']);
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterEach(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists every object the owner manages with its id and state; a difference is pending (what, which fields) or skipped (why); unmanaged objects are not listed', async () => {
    const rules = await listRules(emulator);
    const office = rules.find((rule) => rule.cidr === '203.0.113.0/24');
    // Behind edgesync's back: office widened; an unmanaged rule added; another owner takes the CIDR `blocked` asks for.
    await callService(emulator, 'PATCH', `/ip_policy_rules/${office?.id}`, { cidr: '203.0.0.0/16' });
    await callService(emulator, 'POST', '/ip_policy_rules', {
      ip_policy_id: POLICY,
      cidr: '100.64.0.0/10',
      action: 'allow',
    });
    await callService(emulator, 'POST', '/ip_policy_rules', {
      ip_policy_id: POLICY,
      cidr: '172.16.0.0/12',
      action: 'deny',
      metadata: JSON.stringify({ edgesync: { owner: 'team-b', name: 'theirs' } }),
    });
    // In Git: `old` removed, `fresh` added, `blocked` wants a CIDR team-b holds.
    await write({
      office: { cidr: '203.0.113.0/24' },
      partner: { cidr: '198.51.100.0/24' },
      fresh: { cidr: '192.0.2.128/25' },
      blocked: { cidr: '172.16.0.0/12', action: 'deny' },
    });

    const run = await cli(['get', 'manifests', '--owner', 'team-a', '--format', 'json']);
    const listed = JSON.parse(run.stdout) as {
      owner: string;
      counts: Record<string, number>;
      objects: Listed[];
    };
    const byName = new Map(listed.objects.map((object) => [object.name, object]));

    expect(run.code, run.stderr).toBe(0);
    expect(listed.owner).toBe('team-a');
    expect(listed.objects.map((object) => object.name)).toEqual([
      'blocked',
      'fresh',
      'office',
      'old',
      'partner',
    ]);
    expect(byName.get('partner')).toMatchObject({
      state: 'in_sync',
      reason: null,
      fields: [],
      source: 'manifests/rules.yaml:7',
    });
    expect(byName.get('partner')?.id).toMatch(/^ipr_/);
    expect(byName.get('office')).toMatchObject({ state: 'pending', id: office?.id, fields: ['cidr'] });
    expect(byName.get('office')?.reason).toMatch(/^update/);
    expect(byName.get('fresh')).toMatchObject({
      state: 'pending',
      id: null,
      reason: expect.stringMatching(/^create/),
    });
    expect(byName.get('old')).toMatchObject({
      state: 'pending',
      source: null,
      reason: expect.stringMatching(/^delete/),
    });
    expect(byName.get('blocked')?.state).toBe('skipped');
    expect(byName.get('blocked')?.reason).toMatch(/172\.16\.0\.0\/12/);
    expect(listed.counts).toEqual({ in_sync: 1, pending: 3, drift: 0, skipped: 1, held: 0 });
    expect(run.stderr).toContain('5 objects: 1 in sync, 3 pending, 1 skipped');
  });

  it('reads the account at the floor of list requests: as many requests as plan', async () => {
    const before = await stats();
    const planned = await cli(['plan', 'manifests', '--owner', 'team-a']);
    const afterPlan = await stats();
    const got = await cli(['get', 'manifests', '--owner', 'team-a']);
    const afterGet = await stats();

    expect(planned.code).toBe(0);
    expect(got.code).toBe(0);
    expect(afterGet - afterPlan).toBe(afterPlan - before);
  });

  it('prints a table with whole identifiers, filtered by --kind and --state; a bad filter names the flag and the choices', async () => {
    await write({ office: { cidr: '203.0.113.0/24' }, partner: { cidr: '198.51.100.0/24' } });

    const table = await cli(['get', 'manifests', '--owner', 'team-a']);
    const pending = await cli(['get', 'manifests', '--owner', 'team-a', '--state', 'pending,skipped']);
    const none = await cli(['get', 'manifests', '--owner', 'team-a', '--kind', 'reserved_addrs']);
    const badState = await cli(['get', 'manifests', '--state', 'drifted']);
    const badKind = await cli(['get', 'manifests', '--kind', 'rules']);
    const lines = table.stdout.trimEnd().split('\n');

    expect(table.code).toBe(0);
    expect(lines[0]).toMatch(/^KIND\s+NAME\s+ID\s+STATE\s+REASON$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'ip_policy_rules office',
      'ip_policy_rules old',
      'ip_policy_rules partner',
    ]);
    expect(lines.find((line) => line.includes(' old '))).toMatch(/ipr_\w{27}\s+pending\s+delete: /);
    expect(pending.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(none.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/^KIND/)]);
    expect(none.stderr).toContain('0 objects');
    expect(badState.code).toBe(1);
    expect(badState.stderr).toContain(
      '--state: expected states among in_sync, pending, drift, skipped, held (found "drifted")',
    );
    expect(badKind.code).toBe(1);
    expect(badKind.stderr).toContain('--kind: expected kinds among');
  });

  it('as a process: exit 0 with the table, exit 1 with file:line on invalid manifests', async () => {
    const ok = await runEdgesyncProcess(['get', 'manifests', '--owner', 'team-a'], { emulator, cwd: dir });
    await writeFile(
      join(dir, 'manifests', 'rules.yaml'),
      `version: 1\nip_policy_rules:\n  bad:\n    ip_policy_id: ${POLICY}\n    cidr: 300.0.0.0/8\n    action: allow\n`,
    );
    const invalid = await runEdgesyncProcess(['get', 'manifests', '--owner', 'team-a'], {
      emulator,
      cwd: dir,
    });

    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^KIND/);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('manifests/rules.yaml:5');
    expect(invalid.stdout).toBe('');
  });
});
