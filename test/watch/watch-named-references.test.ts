import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useDaemonHarness } from './daemon-harness.js';
import { listRules } from './daemon-process.js';

const POLICY = 'ipp_WatchRefsTestPolicy00000001';
const MISSING_POLICY = 'ipp_WatchRefsTestMissing0000001';

describe('the daemon checks named IP policies as plan does (in process)', () => {
  const startDaemon = useDaemonHarness();

  it('skips the entry naming a policy the account lacks, with its place, and applies the rest', async () => {
    const running = await startDaemon({
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'refs' }] } },
      files: {
        'manifests/rules.yaml': `version: 1\nip_policy_rules:\n  ghost:\n    ip_policy_id: ${MISSING_POLICY}\n    cidr: 198.51.100.0/24\n    action: deny\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: 203.0.113.0/24\n    action: allow\n`,
      },
    });
    const file = join(running.dir, 'manifests', 'rules.yaml');

    await running.record(1, (record) => record.lastReconcile?.result === 'partial');
    const status = await running.status();
    const rules = await listRules(running.emulator);

    expect(rules.map((rule) => rule.cidr)).toEqual(['203.0.113.0/24']);
    expect(status.skipped_entries?.map((entry) => [entry.kind, entry.name, entry.reason])).toEqual([
      ['ip_policy_rules', 'ghost', 'reference_not_found'],
    ]);
    expect(status.skipped_entries?.[0]).toMatchObject({ file, line: 4 });
  });
});
