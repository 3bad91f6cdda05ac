import { describe, expect, it } from 'vitest';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { KINDS } from '../../src/kinds/registry.js';
import { useDaemonHarness } from './daemon-harness.js';
import { callService, rulesManifest } from './daemon-process.js';

const POLICY = 'ipp_DaemonRegistryTestPolicy001';
const OWNER = 'registry-tests';

describe('the daemon takes the registry of kinds as a value (in process)', () => {
  const startDaemon = useDaemonHarness();

  it('reads, plans and applies only the kinds of the registry it is given', async () => {
    const daemon = await startDaemon({
      emulator: {
        seed: {
          ip_policies: [{ id: POLICY }],
          // Owned by the same owner and in no manifest: the full registry would prune it.
          reserved_addrs: [
            {
              description: 'outside the registry',
              metadata: encodeMetadata(undefined, { owner: OWNER, name: 'old' }),
            },
          ],
        },
      },
      kinds: KINDS.filter((kind) => kind.name === 'ip_policy_rules'),
      owner: OWNER,
      files: { 'manifests/rules.yaml': rulesManifest(POLICY, { office: { cidr: '192.0.2.0/24' } }) },
    });

    await daemon.record(1, (record) => record.lastReconcile?.result === 'applied');
    const status = await daemon.status();
    const { byRoute } = (await callService(daemon.emulator, 'GET', '/_emulator/stats')).body as {
      byRoute: Record<string, number>;
    };

    expect(status.last_plan?.changes).toEqual(['ip_policy_rules.office']);
    expect(status.live_cache?.kinds_to_read).toEqual([]);
    // The rules' kind is listed and written; the IP policy its entry names is read by ID (it is no kind of the
    // registry, and the plan checks that the account has it); no other kind is read.
    expect(Object.keys(byRoute).sort()).toEqual([
      'GET /ip_policies/{id}',
      'GET /ip_policy_rules',
      'POST /ip_policy_rules',
    ]);
  });
});
