import { describe, expect, it } from 'vitest';
import { useDaemonHarness } from './daemon-harness.js';
import { listRules } from './daemon-process.js';

const POLICY = 'ipp_WatchProtectPolicy000000001';

function manifest(withGuarded: boolean): string {
  const guarded = `  guarded:\n    ip_policy_id: ${POLICY}\n    cidr: 10.9.2.0/24\n    action: deny\n    protect: true\n`;
  const keep = `  keep:\n    ip_policy_id: ${POLICY}\n    cidr: 10.9.1.0/24\n    action: deny\n`;
  return `version: 1\nip_policy_rules:\n${keep}${withGuarded ? guarded : ''}`;
}

describe('edgesync watch and protect: true (in process)', () => {
  const startDaemon = useDaemonHarness();

  it('never deletes a protected rule whose entry is removed, and reports the refusal', async () => {
    const watching = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'protect tests' }] } },
      plan: { maxDestroy: { count: 100 } },
      files: { 'manifests/rules.yaml': manifest(true) },
    });
    await watching.record(1);
    expect(await listRules(watching.emulator)).toHaveLength(2);

    await watching.change(
      () => watching.write('manifests/rules.yaml', manifest(false)),
      (record) => record.plan?.summary.refusal !== undefined,
    );
    const refused = await watching.status();

    expect(refused.last_plan?.refusal?.code).toBe('protected');
    expect(refused.last_plan?.refusal?.message).toContain('ip_policy_rules.guarded');
    expect(refused.last_plan?.applied).toBe(false);
    expect((await listRules(watching.emulator)).map((rule) => rule.cidr).sort()).toEqual([
      '10.9.1.0/24',
      '10.9.2.0/24',
    ]);
  });
});
