import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import type { EntryAddress } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import {
  CORP_PEM,
  desiredState,
  entry,
  liveCa,
  liveEdge,
  liveRule,
  liveState,
  marked,
  OWNER,
  POLICY,
} from './builders.js';

const rule = (cidr: string, action: 'allow' | 'deny') => ({ cidr, action, ip_policy_id: POLICY });

describe('planChanges: an error that stops one entry only names that entry', () => {
  it.each([
    {
      title: 'a CIDR held by a rule edgesync does not own',
      entries: [entry('ip_policy_rules', 'lab', rule('198.51.100.0/24', 'allow'))],
      live: [liveRule('ipr_theirs', { cidr: '198.51.100.0/24', action: 'allow' })],
      code: 'unique_key_taken',
      named: { kind: 'ip_policy_rules', name: 'lab' },
    },
    {
      title: 'a hostport an edge of another owner serves',
      entries: [entry('https_edges', 'web', { hostports: ['web.example.com:443'] })],
      live: [
        liveEdge('edghts_theirs', { hostports: ['web.example.com:443'], metadata: marked('x', 'other') }),
      ],
      code: 'unique_key_taken',
      named: { kind: 'https_edges', name: 'web' },
    },
    {
      title: 'a CA id the account lacks',
      entries: [
        entry('https_edges', 'web', {
          hostports: ['a.example.com:443'],
          mutual_tls: { certificate_authorities: ['ca_nope'] },
        }),
      ],
      live: [],
      code: 'reference_not_found',
      named: { kind: 'https_edges', name: 'web' },
    },
    {
      title: 'an adopted id the account lacks',
      entries: [entry('ip_policy_rules', 'x', rule('192.0.2.0/24', 'allow'), { id: 'ipr_missing' })],
      live: [],
      code: 'adopt_not_found',
      named: { kind: 'ip_policy_rules', name: 'x' },
    },
    {
      title: 'a TLS edge the account lacks',
      entries: [
        entry('tls_edges', 'db', { mutual_tls: { certificate_authorities: [] } }, { id: 'edgtls_gone' }),
      ],
      live: [],
      code: 'edge_not_found',
      named: { kind: 'tls_edges', name: 'db' },
    },
    {
      title: 'a prune of a CA that an edge left alone still names: the pruned object, by its marker',
      entries: [entry('https_edges', 'web', { hostports: ['web.example.com:443'] }, { id: 'edghts_1' })],
      live: [
        liveCa('ca_old', { pem: CORP_PEM, metadata: marked('corp') }),
        liveEdge('edghts_1', {
          hostports: ['web.example.com:443'],
          metadata: marked('web'),
          caIds: ['ca_old'],
        }),
      ],
      code: 'still_referenced',
      named: { kind: 'certificate_authorities', name: 'corp' },
    },
  ])('$title', ({ entries, live, code, named }) => {
    const plan = planChanges(desiredState(entries), liveState(live), { kinds: KINDS, owner: OWNER });

    expect(plan.errors.filter((error) => error.code === code).map((error) => error.entry)).toEqual([
      named satisfies EntryAddress,
    ]);
  });

  it.each([
    {
      title: 'two rules for one CIDR and IP policy',
      entries: [
        entry('ip_policy_rules', 'a', rule('192.0.2.0/24', 'allow')),
        entry('ip_policy_rules', 'b', rule('192.0.2.0/24', 'deny')),
      ],
      live: [],
      code: 'unique_key_conflict',
    },
    {
      title: 'two entries adopting one id',
      entries: [
        entry('ip_policy_rules', 'a', rule('192.0.2.0/24', 'allow'), { id: 'ipr_1' }),
        entry('ip_policy_rules', 'b', rule('192.0.2.0/24', 'allow'), { id: 'ipr_1' }),
      ],
      live: [liveRule('ipr_1', { cidr: '192.0.2.0/24', action: 'allow' })],
      code: 'adopt_duplicate',
    },
  ])('names no entry when the manifests contradict themselves: $title', ({ entries, live, code }) => {
    const plan = planChanges(desiredState(entries), liveState(live), { kinds: KINDS, owner: OWNER });

    const errors = plan.errors.filter((error) => error.code === code);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.map((error) => error.entry)).toEqual(errors.map(() => undefined));
  });
});
