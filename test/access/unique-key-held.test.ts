import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { desiredState, entry, liveRule, liveState, marked, OWNER, POLICY } from '../plan/builders.js';
import { BUILT_CLI } from '../support/built-cli.js';

/**
 * The service holds one rule per CIDR and IP policy (the only unique key the
 * spec and the emulator impose). A desired rule whose key an object edgesync
 * does not own already holds is refused by `plan`, with the place in the
 * manifest and the `id:` that adopts the holder, not by `apply` halfway.
 */
describe('a unique key held by an object edgesync does not own', () => {
  const desired = () =>
    desiredState([
      entry(
        'ip_policy_rules',
        'office',
        { cidr: '10.5.0.0/16', action: 'deny', ip_policy_id: POLICY },
        { fieldLocations: { '/cidr': { file: 'manifests/main.yaml', line: 40, column: 11 } } },
      ),
    ]);

  it.each([
    { holder: 'no marker', metadata: undefined, says: 'not owned by edgesync' },
    {
      holder: 'another owner',
      metadata: marked('vpn', 'team-b'),
      says: 'owned by "team-b" as ip_policy_rules.vpn',
    },
  ])(
    'held by a rule with $holder: a plan error at the cidr, naming the holder and how to adopt it',
    ({ metadata, says }) => {
      const live = liveState([
        liveRule('ipr_held', { cidr: '10.5.0.0/16', action: 'allow', ...(metadata ? { metadata } : {}) }),
      ]);

      const plan = planChanges(desired(), live, { kinds: KINDS, owner: OWNER });

      expect(plan.errors).toEqual([
        {
          code: 'unique_key_taken',
          message: `ip_policy_rules.office: cidr 10.5.0.0/16 and ip_policy_id ${POLICY} is already held by ipr_held (${says}); the service holds only one. To manage that object here, add \`id: ipr_held\` to this entry; otherwise change the entry or remove ipr_held`,
          source: { file: 'manifests/main.yaml', line: 40, column: 11 },
          entry: { kind: 'ip_policy_rules', name: 'office' },
        },
      ]);
    },
  );

  it('adopting the holder by id plans an adoption instead', () => {
    const live = liveState([liveRule('ipr_held', { cidr: '10.5.0.0/16', action: 'deny' })]);
    const adopting = desiredState([
      entry(
        'ip_policy_rules',
        'office',
        { cidr: '10.5.0.0/16', action: 'deny', ip_policy_id: POLICY },
        { id: 'ipr_held' },
      ),
    ]);

    const plan = planChanges(adopting, live, { kinds: KINDS, owner: OWNER });

    expect(plan.errors).toEqual([]);
    expect(plan.changes.map((change) => [change.op, change.id])).toEqual([['adopt', 'ipr_held']]);
  });

  describe('edgesync plan, as a process against the emulator', () => {
    let emulator: RunningEmulator;
    let scratch: string;
    beforeEach(async () => {
      emulator = await startEmulator({
        seed: {
          ip_policies: [{ id: POLICY }],
          ip_policy_rules: [
            {
              id: 'ipr_HeldByHand00000000000000001',
              cidr: '10.5.0.0/16',
              action: 'allow',
              ip_policy_id: POLICY,
            },
          ],
        },
      });
      scratch = await mkdtemp(join(tmpdir(), 'edgesync-unique-'));
    });
    afterEach(async () => {
      await emulator.close();
      await rm(scratch, { recursive: true, force: true });
    });

    it('exits 1 with file:line:col and the id to adopt; with that id it plans an adoption', async () => {
      const manifest = (id: string) =>
        [
          'version: 1',
          'ip_policy_rules:',
          '  office:',
          id,
          '    cidr: 10.5.0.0/16',
          '    action: deny',
          `    ip_policy_id: ${POLICY}`,
          '',
        ].join('\n');
      await writeFile(join(scratch, 'rules.yaml'), manifest('    description: office'));

      const refused = await runPlan(emulator, scratch);
      await writeFile(join(scratch, 'rules.yaml'), manifest('    id: ipr_HeldByHand00000000000000001'));
      const adopted = await runPlan(emulator, scratch);

      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(
        /rules\.yaml:5:5: .*ipr_HeldByHand00000000000000001 .*add `id: ipr_HeldByHand00000000000000001`/,
      );
      expect(adopted.code).toBe(0);
      expect(adopted.stdout).toMatch(/ip_policy_rules\.office/);
    });
  });
});

function runPlan(emulator: RunningEmulator, dir: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BUILT_CLI, 'plan', dir],
      { env: { PATH: process.env.PATH ?? '', EDGE_API_URL: emulator.url, EDGE_API_KEY: emulator.apiKey } },
      (error, stdout) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout });
      },
    );
  });
}
