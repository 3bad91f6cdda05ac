import { describe, expect, it } from 'vitest';
import { KINDS, kindByName } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { contextChangeLine, contextChanges, planContext } from '../../src/plan/saved-plan-context.js';
import { desiredState, entry, liveRule, liveState, marked, OTHER_POLICY, OWNER, POLICY } from './builders.js';

const TCP_EDGE = 'edgtcp_2a8eContextTest00000000000';

function liveTcpEdge(policies: readonly string[]) {
  return kindByName('tcp_edges').fromApi({
    id: TCP_EDGE,
    uri: `https://api.example.com/edges/tcp/${TCP_EDGE}`,
    created_at: '2026-01-01T00:00:00Z',
    hostport: '1.tcp.example.com:12345',
    ip_restriction:
      policies.length === 0
        ? null
        : { enabled: true, ip_policies: policies.map((id) => ({ id, uri: `https://x/${id}` })) },
  });
}

const unmanaged = liveRule('ipr_2a8bUnmanagedInOffice000000001', { cidr: '10.1.0.0/16', action: 'allow' });
const otherOwners = liveRule('ipr_2a8bOtherOwnerInOffice00000001', {
  cidr: '10.2.0.0/16',
  action: 'deny',
  metadata: marked('theirs', 'team-b'),
});
const ours = liveRule('ipr_2a8bOursInOffice000000000000001', {
  cidr: '10.3.0.0/16',
  action: 'deny',
  metadata: marked('ours'),
});
const elsewhere = liveRule('ipr_2a8bUnmanagedInBlockList00001', {
  cidr: '10.4.0.0/16',
  action: 'deny',
  policy: OTHER_POLICY,
});

describe('planContext: the objects around a plan', () => {
  it('records, for the policy a rule is created in, the rules the owner does not manage, and none of another policy', () => {
    const live = liveState([unmanaged, otherOwners, ours, elsewhere]);
    const desired = desiredState([
      entry('ip_policy_rules', 'ours', { ip_policy_id: POLICY, cidr: '10.3.0.0/16', action: 'deny' }),
      entry('ip_policy_rules', 'partner', { ip_policy_id: POLICY, cidr: '198.51.100.0/24', action: 'allow' }),
    ]);
    const plan = planChanges(desired, live, { kinds: KINDS, owner: OWNER });

    const context = planContext(plan, live, KINDS, OWNER);

    expect(context).toEqual({
      [POLICY]: { [unmanaged.id]: unmanaged.fingerprint, [otherOwners.id]: otherOwners.fingerprint },
    });
  });

  it('records the rules of a policy an edge is made to name in its IP restriction, and of the one it named before', () => {
    const live = liveState([liveTcpEdge([OTHER_POLICY]), unmanaged, elsewhere]);
    const desired = desiredState([
      entry('tcp_edges', 'ssh', { ip_restriction: { ip_policies: [POLICY] } }, { id: TCP_EDGE }),
    ]);
    const plan = planChanges(desired, live, { kinds: KINDS, owner: OWNER });

    const context = planContext(plan, live, KINDS, OWNER);

    expect(Object.keys(context).sort()).toEqual([OTHER_POLICY, POLICY].sort());
    expect(context[POLICY]).toEqual({ [unmanaged.id]: unmanaged.fingerprint });
    expect(context[OTHER_POLICY]).toEqual({ [elsewhere.id]: elsewhere.fingerprint });
  });

  it('finds what was added, changed and removed since, each with what it holds now', () => {
    const added = liveRule('ipr_2a8bAddedByHand000000000000001', {
      cidr: '0.0.0.0/0',
      action: 'allow',
      description: 'everyone',
    });
    const changed = liveRule(unmanaged.id, { cidr: '10.0.0.0/8', action: 'allow' });
    const saved = {
      [POLICY]: { [unmanaged.id]: unmanaged.fingerprint, [otherOwners.id]: otherOwners.fingerprint },
    };

    const changes = contextChanges(saved, liveState([changed, added, ours, elsewhere]), KINDS, OWNER);

    expect(changes.map(contextChangeLine)).toEqual([
      `ip_policy_rules ${added.id} added to IP policy ${POLICY}: now description everyone, cidr 0.0.0.0/0, action allow, not managed by edgesync`,
      `ip_policy_rules ${otherOwners.id} removed from IP policy ${POLICY}`,
      `ip_policy_rules ${unmanaged.id} changed in IP policy ${POLICY}: now cidr 10.0.0.0/8, action allow, not managed by edgesync`,
    ]);
  });
});
