import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { EntryCreate, EntryCreateChange } from '../../src/plan/entry-create.js';
import type { Action, Plan, ResourceChange } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { CORP_PEM, desiredState, entry, liveState, OWNER, POLICY } from './builders.js';

/**
 * An EntryCreate holds a few facts and derives its Action properties when
 * read. Whoever reads a plan must not be able to tell: a spread,
 * JSON, Object.keys and structuredClone see the properties a plain Action has,
 * in its order, with the values the create request needs.
 */
describe('a create planned from an entry', () => {
  const plan: Plan = planChanges(
    desiredState([
      entry('certificate_authorities', 'corp', { ca_pem: CORP_PEM }),
      entry('https_edges', 'web', {
        hostports: ['web.example.com:443'],
        mutual_tls: { certificate_authorities: ['corp'] },
      }),
      entry(
        'ip_policy_rules',
        'office',
        { cidr: '10.1.0.0/16', action: 'allow', ip_policy_id: POLICY, metadata: { team: 'net' } },
        { protect: true },
      ),
    ]),
    liveState([]),
    { kinds: KINDS, owner: OWNER },
  );
  const actionOf = (key: string): Action => {
    const found = plan.actions.find((action) => action.key === key);
    if (found === undefined) throw new Error(`no ${key}`);
    return found;
  };
  const changeOf = (address: string): ResourceChange => {
    const found = plan.changes.find((change) => change.address === address);
    if (found === undefined) throw new Error(`no ${address}`);
    return found;
  };

  it('is an EntryCreate whose own properties are a plain Action’s, in order', () => {
    expect(plan.errors).toEqual([]);
    expect(plan.actions.every((action) => action instanceof EntryCreate)).toBe(true);
    expect(plan.changes.every((change) => change instanceof EntryCreateChange)).toBe(true);
    for (const action of plan.actions) {
      expect(Object.keys(action)).toEqual([
        'key',
        'op',
        'kind',
        'name',
        'change',
        'request',
        'sensitivePaths',
        'marker',
        'dependsOn',
        'source',
      ]);
      expect({ ...action }).toEqual(JSON.parse(JSON.stringify(action)));
      expect(structuredClone(action)).toEqual({ ...action });
    }
    for (const change of plan.changes) {
      expect(Object.keys(change)).toEqual([
        'address',
        'op',
        'kind',
        'name',
        'changes',
        'reason',
        'source',
        'actionKeys',
      ]);
      expect(structuredClone(change)).toEqual(JSON.parse(JSON.stringify(change)));
    }
  });

  it('derives the request with the marker (protect included), the user metadata and pending IDs', () => {
    expect({ ...actionOf('create:ip_policy_rules.office') }).toEqual({
      key: 'create:ip_policy_rules.office',
      op: 'create',
      kind: 'ip_policy_rules',
      name: 'office',
      change: 'ip_policy_rules.office',
      request: {
        method: 'POST',
        path: '/ip_policy_rules',
        body: {
          cidr: '10.1.0.0/16',
          action: 'allow',
          ip_policy_id: POLICY,
          metadata: '{"edgesync":{"name":"office","owner":"team-a","protect":true},"team":"net"}',
        },
      },
      sensitivePaths: [],
      marker: { owner: OWNER, name: 'office' },
      dependsOn: [],
      source: { file: 'manifests/main.yaml', line: expect.any(Number), column: 3 },
    });
    const edge = actionOf('create:https_edges.web');
    expect(edge.dependsOn).toEqual(['create:certificate_authorities.corp']);
    expect(edge.request.body).toMatchObject({
      mutual_tls: { certificate_authority_ids: [{ $createdBy: 'create:certificate_authorities.corp' }] },
    });
  });

  it('derives its change: every field set, the reason, its one action key', () => {
    const change = changeOf('ip_policy_rules.office');
    expect({ ...change }).toEqual({
      address: 'ip_policy_rules.office',
      op: 'create',
      kind: 'ip_policy_rules',
      name: 'office',
      changes: expect.arrayContaining([
        expect.objectContaining({ path: 'cidr', after: '10.1.0.0/16' }),
        expect.objectContaining({ path: 'action', after: 'allow' }),
        expect.objectContaining({ path: 'ip_policy_id', after: POLICY }),
      ]),
      reason: 'not in the live account',
      source: actionOf('create:ip_policy_rules.office').source,
      actionKeys: ['create:ip_policy_rules.office'],
    });
    expect(() => (change.actionKeys as string[]).push('update:ip_policy_rules.office')).toThrow(TypeError);
  });

  it('cannot be written to: its derived properties have no setter', () => {
    const action = actionOf('create:certificate_authorities.corp') as { name: string };
    expect(() => {
      action.name = 'other';
    }).toThrow(TypeError);
  });
});
