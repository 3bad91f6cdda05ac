import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import type { Plan } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import type { PlanOptions } from '../../src/plan/planner-options.js';
import {
  CORP_PEM,
  desiredState,
  entry,
  liveCa,
  liveEdge,
  liveRule,
  liveState,
  liveTlsEdge,
  marked,
  OTHER_POLICY,
  OWNER,
  PARTNER_PEM,
  POLICY,
} from './builders.js';
import { waitsFor } from './waits-for.js';

const options: PlanOptions = { kinds: KINDS, owner: OWNER };

function actionKeys(plan: Plan): string[] {
  return plan.actions.map((action) => action.key);
}

function action(plan: Plan, key: string) {
  const found = plan.actions.find((candidate) => candidate.key === key);
  if (!found) throw new Error(`no action ${key} in ${actionKeys(plan).join(', ')}`);
  return found;
}

/** Asserts that `first` comes before `second` and that `second` (transitively) depends on it. */
function expectOrdered(plan: Plan, first: string, second: string): void {
  const keys = actionKeys(plan);
  expect(keys.indexOf(first)).toBeGreaterThanOrEqual(0);
  expect(keys.indexOf(first)).toBeLessThan(keys.indexOf(second));
  expect(waitsFor(plan, second).has(first)).toBe(true);
}

/** Asserts that both actions are in the plan and neither waits for the other. */
function expectIndependent(plan: Plan, one: string, other: string): void {
  expect(actionKeys(plan)).toEqual(expect.arrayContaining([one, other]));
  expect(waitsFor(plan, one).has(other)).toBe(false);
  expect(waitsFor(plan, other).has(one)).toBe(false);
}

function expectTopological(plan: Plan): void {
  const seen = new Set<string>();
  for (const candidate of plan.actions) {
    for (const dependency of candidate.dependsOn) expect(seen.has(dependency)).toBe(true);
    seen.add(candidate.key);
  }
}

const rule = (cidr: string, action: 'allow' | 'deny', policy = POLICY) => ({
  cidr,
  action,
  ip_policy_id: policy,
});

describe('planChanges: operations', () => {
  it('creates a rule that is not in the account, with the ownership marker', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'office', { ...rule('203.0.113.0/24', 'allow'), metadata: { team: 'net' } }),
    ]);

    const plan = planChanges(desired, liveState([]), options);

    expect(plan.changes.map((change) => [change.address, change.op])).toEqual([
      ['ip_policy_rules.office', 'create'],
    ]);
    const create = action(plan, 'create:ip_policy_rules.office');
    expect(create.request).toEqual({
      method: 'POST',
      path: '/ip_policy_rules',
      body: {
        cidr: '203.0.113.0/24',
        action: 'allow',
        ip_policy_id: POLICY,
        metadata: '{"edgesync":{"name":"office","owner":"team-a"},"team":"net"}',
      },
    });
    expect(create.marker).toEqual({ owner: OWNER, name: 'office' });
    expect(plan.summary.create).toBe(1);
    expect(plan.errors).toEqual([]);
    expect(plan.refusal).toBeUndefined();
  });

  it('reports nothing to do when the live object matches after normalization', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'office', { ...rule('2001:DB8:0::/32', 'allow'), description: '' }),
    ]);
    const live = liveState([
      liveRule('ipr_1', { cidr: '2001:db8::/32', action: 'allow', metadata: marked('office') }),
    ]);

    const plan = planChanges(desired, live, options);

    expect(plan.changes).toEqual([]);
    expect(plan.actions).toEqual([]);
    expect(plan.summary.unchanged).toBe(1);
    expect(plan.fingerprints).toHaveProperty('ipr_1');
  });

  it('fingerprints the objects it owns by ID in ID order, one record however often it is read', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'office', rule('203.0.113.0/24', 'allow')),
      entry('ip_policy_rules', 'lab', rule('198.51.100.0/24', 'deny')),
    ]);
    const lab = liveRule('ipr_2', { cidr: '198.51.100.0/24', action: 'deny', metadata: marked('lab') });
    const office = liveRule('ipr_1', { cidr: '203.0.113.0/24', action: 'allow', metadata: marked('office') });
    const unmanaged = liveRule('ipr_0', { cidr: '192.0.2.0/24', action: 'deny' });

    const plan = planChanges(desired, liveState([lab, unmanaged, office]), options);

    expect(Object.entries(plan.fingerprints)).toEqual([
      ['ipr_1', office.fingerprint],
      ['ipr_2', lab.fingerprint],
    ]);
    // apply looks IDs up in it one by one: the record is made once, not at each read.
    expect(plan.fingerprints).toBe(plan.fingerprints);
    expect(JSON.parse(JSON.stringify(plan)).fingerprints).toEqual(plan.fingerprints);
  });

  it('updates only the changed fields with a PATCH', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'office', { ...rule('203.0.113.0/24', 'allow'), description: 'new words' }),
    ]);
    const live = liveState([
      liveRule('ipr_1', {
        cidr: '203.0.113.0/24',
        action: 'allow',
        metadata: marked('office'),
        description: 'old',
      }),
    ]);

    const plan = planChanges(desired, live, options);

    expect(plan.changes[0]).toMatchObject({ op: 'update', id: 'ipr_1', reason: 'description changed' });
    expect(plan.changes[0]?.changes).toEqual([
      { path: 'description', before: 'old', after: 'new words', sensitive: false, forcesReplace: false },
    ]);
    expect(action(plan, 'update:ip_policy_rules.office').request).toEqual({
      method: 'PATCH',
      path: '/ip_policy_rules/ipr_1',
      body: { description: 'new words' },
    });
  });

  it('replaces create-first when a replace-only field changes and the uniqueness key changes', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'office', rule('203.0.113.0/24', 'deny', OTHER_POLICY)),
    ]);
    const live = liveState([
      liveRule('ipr_1', { cidr: '203.0.113.0/24', action: 'deny', metadata: marked('office') }),
    ]);

    const plan = planChanges(desired, live, options);

    expect(plan.changes[0]).toMatchObject({ op: 'replace', id: 'ipr_1' });
    expect(plan.changes[0]?.changes[0]).toMatchObject({ path: 'ip_policy_id', forcesReplace: true });
    expectOrdered(plan, 'create:ip_policy_rules.office', 'delete:ip_policy_rules.office');
    expect(action(plan, 'create:ip_policy_rules.office').request.body).toMatchObject({
      ip_policy_id: OTHER_POLICY,
    });
    expect(plan.summary.replace).toBe(1);
  });

  it('replaces an allow rule delete-first: removing an allow only narrows access', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'office', rule('203.0.113.0/24', 'allow', OTHER_POLICY)),
    ]);
    const live = liveState([
      liveRule('ipr_1', { cidr: '203.0.113.0/24', action: 'allow', metadata: marked('office') }),
    ]);

    const plan = planChanges(desired, live, options);

    expect(actionKeys(plan)).toEqual(['delete:ip_policy_rules.office', 'create:ip_policy_rules.office']);
    expect(action(plan, 'create:ip_policy_rules.office').dependsOn).toEqual([
      'delete:ip_policy_rules.office',
    ]);
  });

  it('prunes owned objects no longer in the manifests and never touches unmanaged ones', () => {
    const desired = desiredState([entry('ip_policy_rules', 'keep', rule('198.51.100.0/24', 'deny'))]);
    const live = liveState([
      liveRule('ipr_keep', { cidr: '198.51.100.0/24', action: 'deny', metadata: marked('keep') }),
      liveRule('ipr_gone', { cidr: '192.0.2.0/24', action: 'allow', metadata: marked('gone') }),
      liveRule('ipr_theirs', { cidr: '192.0.2.1/32', action: 'allow', metadata: marked('gone', 'team-b') }),
      liveRule('ipr_plain', { cidr: '192.0.2.2/32', action: 'allow', metadata: 'hand made' }),
    ]);

    const plan = planChanges(desired, live, { ...options, maxDestroy: { count: 5 } });

    expect(plan.changes.map((change) => [change.address, change.op, change.id])).toEqual([
      ['ip_policy_rules.gone', 'delete', 'ipr_gone'],
    ]);
    expect(action(plan, 'delete:ip_policy_rules.gone').request).toEqual({
      method: 'DELETE',
      path: '/ip_policy_rules/ipr_gone',
    });
    expect(plan.summary.unmanaged).toBe(2);
    expect(JSON.stringify(plan.actions)).not.toMatch(/ipr_theirs|ipr_plain/);
    expect(plan.changes[0]?.reason).toContain('no longer in the manifests');
  });

  it('adopts an unmanaged object by id with a PATCH that writes the marker and field updates', () => {
    const desired = desiredState([
      entry(
        'ip_policy_rules',
        'legacy',
        { ...rule('192.0.2.0/24', 'allow'), description: 'now managed' },
        { id: 'ipr_old' },
      ),
    ]);
    const live = liveState([
      liveRule('ipr_old', { cidr: '192.0.2.0/24', action: 'allow', metadata: '{"team":"x"}' }),
    ]);

    const plan = planChanges(desired, live, options);

    expect(plan.changes[0]).toMatchObject({ op: 'adopt', id: 'ipr_old', address: 'ip_policy_rules.legacy' });
    expect(plan.changes[0]?.changes.map((change) => change.path)).toEqual([
      'description',
      'metadata',
      'metadata.edgesync',
    ]);
    expect(action(plan, 'adopt:ip_policy_rules.legacy').request).toEqual({
      method: 'PATCH',
      path: '/ip_policy_rules/ipr_old',
      body: { description: 'now managed', metadata: '{"edgesync":{"name":"legacy","owner":"team-a"}}' },
    });
    expect(plan.summary.adopt).toBe(1);
    expect(plan.summary.unmanaged).toBe(0);
  });

  it('creates a reserved address and attaches its endpoint configuration in a follow-up update', () => {
    const desired = desiredState([
      entry('reserved_addrs', 'bastion', {
        description: 'ssh',
        region: 'eu',
        endpoint_configuration_id: 'ec_Bastion',
      }),
    ]);

    const plan = planChanges(desired, liveState([]), options);

    expect(action(plan, 'create:reserved_addrs.bastion').request.body).toEqual({
      description: 'ssh',
      region: 'eu',
      metadata: '{"edgesync":{"name":"bastion","owner":"team-a"}}',
    });
    const update = action(plan, 'update:reserved_addrs.bastion');
    expect(update.request).toEqual({
      method: 'PATCH',
      path: '/reserved_addrs/{create:reserved_addrs.bastion}',
      body: { endpoint_configuration_id: 'ec_Bastion' },
    });
    expect(update.dependsOn).toEqual(['create:reserved_addrs.bastion']);
  });
});

describe('planChanges: errors only the live account reveals', () => {
  it.each([
    {
      title: 'adopting an id that does not exist',
      entries: [entry('ip_policy_rules', 'x', rule('192.0.2.0/24', 'allow'), { id: 'ipr_missing' })],
      live: [],
      code: 'adopt_not_found',
    },
    {
      title: 'adopting an id already managed under another name',
      entries: [entry('ip_policy_rules', 'x', rule('192.0.2.0/24', 'allow'), { id: 'ipr_1' })],
      live: [liveRule('ipr_1', { cidr: '192.0.2.0/24', action: 'allow', metadata: marked('y') })],
      code: 'adopt_owned_by_other_name',
    },
    {
      title: 'adopting an id of another kind',
      entries: [entry('ip_policy_rules', 'x', rule('192.0.2.0/24', 'allow'), { id: 'ca_1' })],
      live: [liveCa('ca_1', { pem: CORP_PEM })],
      code: 'adopt_wrong_kind',
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
    {
      title: 'two rules for the same CIDR and IP policy',
      entries: [
        entry('ip_policy_rules', 'a', rule('192.0.2.0/24', 'allow')),
        entry('ip_policy_rules', 'b', rule('192.0.2.0/24', 'deny')),
      ],
      live: [],
      code: 'unique_key_conflict',
    },
    {
      title: 'pruning a CA that an edge edgesync leaves alone still names',
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
    },
    {
      title: 'a CA id that does not exist',
      entries: [
        entry('https_edges', 'web', {
          hostports: ['a.example.com:443'],
          mutual_tls: { certificate_authorities: ['ca_nope'] },
        }),
      ],
      live: [],
      code: 'reference_not_found',
    },
    {
      title: 'a TLS edge the service does not know',
      entries: [
        entry('tls_edges', 'db', { mutual_tls: { certificate_authorities: [] } }, { id: 'edgtls_gone' }),
      ],
      live: [],
      code: 'edge_not_found',
    },
    {
      title: 'a route selector matching no route',
      entries: [
        entry('https_edges', 'web', {
          hostports: ['a.example.com:443'],
          routes: [{ match_type: 'path_prefix', match: '/none', oidc: null }],
        }),
      ],
      live: [liveEdge('edghts_1', { hostports: ['a.example.com:443'], metadata: marked('web'), routes: [] })],
      code: 'route_not_found',
    },
    {
      title: 'a route selector matching two routes',
      entries: [
        entry('https_edges', 'web', {
          hostports: ['a.example.com:443'],
          routes: [{ match: '/app', oidc: null }],
        }),
      ],
      live: [
        liveEdge('edghts_1', {
          hostports: ['a.example.com:443'],
          metadata: marked('web'),
          routes: [
            { id: 'edghtsrt_1', match_type: 'path_prefix', match: '/app' },
            { id: 'edghtsrt_2', match_type: 'exact_path', match: '/app' },
          ],
        }),
      ],
      code: 'route_ambiguous',
    },
  ])('$title', ({ entries, live, code }) => {
    const plan = planChanges(desiredState(entries), liveState(live), options);

    expect(plan.errors.map((error) => error.code)).toContain(code);
    expect(plan.errors.every((error) => error.source?.file === 'manifests/main.yaml')).toBe(true);
  });
});

describe('planChanges: ordering', () => {
  it('creates a CA before the edge that names it, with a pending ID in the edge body', () => {
    const desired = desiredState([
      entry('certificate_authorities', 'corp', { ca_pem: CORP_PEM }),
      entry('https_edges', 'web', {
        hostports: ['web.example.com:443'],
        mutual_tls: { certificate_authorities: ['corp'] },
      }),
    ]);

    const plan = planChanges(desired, liveState([]), options);

    expectOrdered(plan, 'create:certificate_authorities.corp', 'create:https_edges.web');
    expect(action(plan, 'create:https_edges.web').request.body).toMatchObject({
      mutual_tls: {
        enabled: true,
        certificate_authority_ids: [{ $createdBy: 'create:certificate_authorities.corp' }],
      },
    });
  });

  it('replacing a CA creates the new one, moves the edge to it, then deletes the old one', () => {
    const desired = desiredState([
      entry('certificate_authorities', 'corp', { ca_pem: PARTNER_PEM }),
      entry('https_edges', 'web', {
        hostports: ['web.example.com:443'],
        mutual_tls: { certificate_authorities: ['corp'] },
      }),
    ]);
    const live = liveState([
      liveCa('ca_old', { pem: CORP_PEM, metadata: marked('corp') }),
      liveEdge('edghts_1', {
        hostports: ['web.example.com:443'],
        metadata: marked('web'),
        caIds: ['ca_old'],
      }),
    ]);

    const plan = planChanges(desired, live, { ...options, force: true });

    expect(plan.changes.map((change) => [change.address, change.op])).toEqual([
      ['certificate_authorities.corp', 'replace'],
      ['https_edges.web.mutual_tls', 'put-module'],
    ]);
    expectOrdered(plan, 'create:certificate_authorities.corp', 'put-module:https_edges.web.mutual_tls');
    expectOrdered(plan, 'put-module:https_edges.web.mutual_tls', 'delete:certificate_authorities.corp');
    expectTopological(plan);
  });

  it('deletes a pruned CA only after the edge stops naming it', () => {
    const desired = desiredState([
      entry('https_edges', 'web', { hostports: ['web.example.com:443'], mutual_tls: null }),
    ]);
    const live = liveState([
      liveCa('ca_old', { pem: CORP_PEM, metadata: marked('corp') }),
      liveEdge('edghts_1', {
        hostports: ['web.example.com:443'],
        metadata: marked('web'),
        caIds: ['ca_old'],
      }),
    ]);

    const plan = planChanges(desired, live, { ...options, force: true });

    expect(action(plan, 'delete-module:https_edges.web.mutual_tls').request).toEqual({
      method: 'DELETE',
      path: '/edges/https/edghts_1/mutual_tls',
    });
    expectOrdered(plan, 'delete-module:https_edges.web.mutual_tls', 'delete:certificate_authorities.corp');
  });

  // Two rules' order matters only where their addresses overlap, in any IP
  // policy: an endpoint may list several policies.
  it.each([
    { deny: '10.0.0.0/8', allow: '10.1.2.0/24', ordered: true, why: 'the deny contains the allow' },
    { deny: '10.1.2.3/32', allow: '10.0.0.0/8', ordered: true, why: 'the allow contains the deny' },
    { deny: '10.0.0.0/24', allow: '10.0.0.0/24', ordered: true, why: 'the same CIDR in two policies' },
    { deny: '10.0.0.5/24', allow: '10.0.0.200/32', ordered: true, why: 'host bits do not narrow' },
    { deny: '2001:db8::/32', allow: '2001:db8:1::/48', ordered: true, why: 'IPv6 containment' },
    { deny: '10.0.0.0/24', allow: '10.0.1.0/24', ordered: false, why: 'adjacent, disjoint' },
    { deny: '2001:db8::/48', allow: '2001:db8:1::/48', ordered: false, why: 'disjoint IPv6' },
    { deny: '0.0.0.0/0', allow: '::/0', ordered: false, why: 'IPv4 and IPv6 never overlap' },
    { deny: '::/0', allow: '0.0.0.0/0', ordered: false, why: 'IPv6 and IPv4 never overlap' },
  ])('deny $deny and allow $allow: ordered $ordered ($why)', ({ deny, allow, ordered }) => {
    const creates = planChanges(
      desiredState([
        entry('ip_policy_rules', 'new-allow', rule(allow, 'allow', POLICY)),
        entry('ip_policy_rules', 'new-deny', rule(deny, 'deny', OTHER_POLICY)),
      ]),
      liveState([]),
      options,
    );
    const deletes = planChanges(
      desiredState([]),
      liveState([
        liveRule('ipr_a', { cidr: allow, action: 'allow', metadata: marked('old-allow') }),
        liveRule('ipr_d', { cidr: deny, action: 'deny', policy: OTHER_POLICY, metadata: marked('old-deny') }),
      ]),
      { ...options, force: true, allowEmpty: true },
    );

    if (ordered) {
      expectOrdered(creates, 'create:ip_policy_rules.new-deny', 'create:ip_policy_rules.new-allow');
      expectOrdered(deletes, 'delete:ip_policy_rules.old-allow', 'delete:ip_policy_rules.old-deny');
    } else {
      expectIndependent(creates, 'create:ip_policy_rules.new-deny', 'create:ip_policy_rules.new-allow');
      expectIndependent(deletes, 'delete:ip_policy_rules.old-allow', 'delete:ip_policy_rules.old-deny');
    }
    expectTopological(creates);
    expectTopological(deletes);
  });

  it('an allow create waits for exactly the deny creates it overlaps', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'deny-ten', rule('10.0.0.0/8', 'deny')),
      entry('ip_policy_rules', 'deny-home', rule('192.168.1.0/24', 'deny', OTHER_POLICY)),
      entry('ip_policy_rules', 'deny-v6', rule('2001:db8::/32', 'deny')),
      entry('ip_policy_rules', 'deny-host', rule('10.2.3.4/32', 'deny', OTHER_POLICY)),
      entry('ip_policy_rules', 'allow-ten-two', rule('10.2.0.0/16', 'allow')),
      entry('ip_policy_rules', 'allow-home-next', rule('192.168.2.0/24', 'allow')),
      entry('ip_policy_rules', 'allow-v6', rule('2001:db8:5::/48', 'allow')),
      entry('ip_policy_rules', 'allow-private', rule('172.16.0.0/12', 'allow')),
      entry('ip_policy_rules', 'allow-all', rule('0.0.0.0/0', 'allow', OTHER_POLICY)),
    ]);

    const plan = planChanges(desired, liveState([]), options);

    const waits = (name: string) => action(plan, `create:ip_policy_rules.${name}`).dependsOn;
    const deny = (name: string) => `create:ip_policy_rules.${name}`;
    expect(waits('allow-ten-two')).toEqual([deny('deny-host'), deny('deny-ten')]);
    expect(waits('allow-home-next')).toEqual([]);
    expect(waits('allow-v6')).toEqual([deny('deny-v6')]);
    expect(waits('allow-private')).toEqual([]);
    expect(waits('allow-all')).toEqual([deny('deny-home'), deny('deny-host'), deny('deny-ten')]);
    for (const name of ['deny-ten', 'deny-home', 'deny-v6', 'deny-host']) expect(waits(name)).toEqual([]);
    expectTopological(plan);
  });

  it.each([
    { from: 'allow', to: 'deny' },
    { from: 'deny', to: 'allow' },
  ] as const)('flips $from → $to on the same CIDR by delete then create', ({ from, to }) => {
    const desired = desiredState([
      entry('ip_policy_rules', 'flip', rule('10.0.0.0/8', to)),
      entry('ip_policy_rules', 'inner-deny', rule('10.1.0.0/16', 'deny')),
      entry('ip_policy_rules', 'elsewhere-deny', rule('172.16.0.0/12', 'deny')),
    ]);
    const live = liveState([
      liveRule('ipr_f', { cidr: '10.0.0.0/8', action: from, metadata: marked('flip') }),
    ]);

    const plan = planChanges(desired, live, { ...options, force: true });

    expect(plan.changes.find((change) => change.address === 'ip_policy_rules.flip')?.op).toBe('replace');
    expectOrdered(plan, 'delete:ip_policy_rules.flip', 'create:ip_policy_rules.flip');
    if (to === 'allow')
      expectOrdered(plan, 'create:ip_policy_rules.inner-deny', 'create:ip_policy_rules.flip');
    expectIndependent(plan, 'create:ip_policy_rules.elsewhere-deny', 'create:ip_policy_rules.flip');
    expectTopological(plan);
  });

  it('an update that moves a rule off a CIDR goes before the create that takes that CIDR', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'moved', rule('10.0.0.0/24', 'deny')),
      entry('ip_policy_rules', 'newcomer', rule('10.0.1.0/24', 'allow')),
    ]);
    const live = liveState([
      liveRule('ipr_1', { cidr: '10.0.1.0/24', action: 'deny', metadata: marked('moved') }),
    ]);

    const plan = planChanges(desired, live, options);

    expectOrdered(plan, 'update:ip_policy_rules.moved', 'create:ip_policy_rules.newcomer');
  });

  it('two deny rules swapping CIDRs keep both rules: each is renamed to the entry that now holds its CIDR', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'x', rule('10.0.1.0/24', 'deny')),
      entry('ip_policy_rules', 'y', rule('10.0.0.0/24', 'deny')),
    ]);
    const live = liveState([
      liveRule('ipr_x', { cidr: '10.0.0.0/24', action: 'deny', metadata: marked('x') }),
      liveRule('ipr_y', { cidr: '10.0.1.0/24', action: 'deny', metadata: marked('y') }),
    ]);

    const plan = planChanges(desired, live, options);

    expect(plan.errors).toEqual([]);
    expect(plan.changes.map((change) => [change.address, change.op, change.id, change.reason])).toEqual([
      ['ip_policy_rules.x', 'update', 'ipr_y', 'renamed from ip_policy_rules.y'],
      ['ip_policy_rules.y', 'update', 'ipr_x', 'renamed from ip_policy_rules.x'],
    ]);
    expect(plan.actions.map((action) => action.request.body)).toEqual([
      { metadata: marked('x') },
      { metadata: marked('y') },
    ]);
  });

  it('a renamed rule on the same CIDR and policy is kept: one PATCH of its marker, no delete', () => {
    const desired = desiredState([entry('ip_policy_rules', 'renamed', rule('10.9.0.0/16', 'deny'))]);
    const live = liveState([
      liveRule('ipr_1', { cidr: '10.9.0.0/16', action: 'deny', metadata: marked('original') }),
    ]);

    const plan = planChanges(desired, live, { kinds: KINDS, owner: OWNER });

    expect(plan.refusal).toBeUndefined();
    expect(plan.actions.map((action) => [action.key, action.request.method, action.request.path])).toEqual([
      ['update:ip_policy_rules.renamed', 'PATCH', '/ip_policy_rules/ipr_1'],
    ]);
    expect(plan.changes[0]?.reason).toBe('renamed from ip_policy_rules.original');
  });
});

describe('planChanges: unique keys sharing a CIDR', () => {
  it('one CIDR in two IP policies is two keys; a third entry repeating one of them conflicts with the first', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'a', rule('10.7.0.0/16', 'deny')),
      entry('ip_policy_rules', 'b', rule('10.7.0.0/16', 'deny', OTHER_POLICY)),
      entry('ip_policy_rules', 'c', rule('10.7.0.0/16', 'allow', OTHER_POLICY)),
    ]);

    const plan = planChanges(desired, liveState([]), options);

    expect(plan.errors.map((error) => [error.code, error.message.split(' (')[0]])).toEqual([
      ['unique_key_conflict', 'ip_policy_rules.c: has the same cidr and ip_policy_id as ip_policy_rules.b'],
    ]);
  });

  it('an entry takes over the rule holding its CIDR in its own policy, not the one in another policy', () => {
    const desired = desiredState([
      entry('ip_policy_rules', 'renamed', rule('10.8.0.0/16', 'deny', OTHER_POLICY)),
      entry('ip_policy_rules', 'kept', rule('10.8.0.0/16', 'deny')),
    ]);
    const live = liveState([
      liveRule('ipr_kept', { cidr: '10.8.0.0/16', action: 'deny', metadata: marked('kept') }),
      liveRule('ipr_old', {
        cidr: '10.8.0.0/16',
        action: 'deny',
        policy: OTHER_POLICY,
        metadata: marked('old'),
      }),
      liveRule('ipr_foreign', { cidr: '10.9.0.0/16', action: 'deny', policy: OTHER_POLICY }),
    ]);

    const plan = planChanges(desired, live, options);

    expect(plan.errors).toEqual([]);
    expect(plan.changes.map((change) => [change.address, change.op, change.id, change.reason])).toEqual([
      ['ip_policy_rules.renamed', 'update', 'ipr_old', 'renamed from ip_policy_rules.old'],
    ]);
    expect(plan.summary.unchanged).toBe(1);
  });
});

describe('planChanges: modules', () => {
  const edge = (modules: Record<string, unknown>, id?: string) =>
    entry('https_edges', 'web', { hostports: ['web.example.com:443'], ...modules }, id ? { id } : {});

  it.each([
    {
      title: 'a module set to null is removed',
      entries: [edge({ tls_termination: null })],
      expected: [['https_edges.web.tls_termination', 'delete-module']],
    },
    {
      title: 'a module absent from an entry edgesync created is removed',
      entries: [edge({})],
      expected: [['https_edges.web.tls_termination', 'delete-module']],
    },
    {
      title: 'a module absent from an adopted entry is left alone',
      entries: [edge({}, 'edghts_1')],
      expected: [],
    },
    {
      title: 'a changed module is replaced by one write, never delete and put',
      entries: [edge({ tls_termination: { min_version: '1.3' } })],
      expected: [['https_edges.web.tls_termination', 'put-module']],
    },
  ])('$title', ({ entries, expected }) => {
    const live = liveState([
      liveEdge('edghts_1', {
        hostports: ['web.example.com:443'],
        metadata: marked('web'),
        tlsTermination: { enabled: true, min_version: '1.2' },
      }),
    ]);

    const plan = planChanges(desiredState(entries), live, options);

    expect(plan.changes.map((change) => [change.address, change.op])).toEqual(expected);
    expect(plan.errors).toEqual([]);
  });

  it('writes a route OIDC module with the secret marked sensitive, never shown', () => {
    const desired = desiredState([
      entry('https_edges', 'web', {
        hostports: ['web.example.com:443'],
        routes: [
          {
            match_type: 'path_prefix',
            match: '/app',
            oidc: {
              issuer: 'https://id.example.com',
              client_id: 'app',
              client_secret: 's3cr3t-value',
              scopes: ['openid'],
            },
          },
        ],
      }),
    ]);
    const live = liveState([
      liveEdge('edghts_1', {
        hostports: ['web.example.com:443'],
        metadata: marked('web'),
        routes: [{ id: 'edghtsrt_app', match_type: 'path_prefix', match: '/app', oidc: null }],
      }),
    ]);

    const plan = planChanges(desired, live, options);

    const change = plan.changes.find((candidate) => candidate.op === 'put-module');
    expect(change).toMatchObject({
      address: 'https_edges.web.routes[edghtsrt_app].oidc',
      routeId: 'edghtsrt_app',
    });
    expect(change?.changes.find((field) => field.path === 'oidc.client_secret')).toEqual({
      path: 'oidc.client_secret',
      sensitive: true,
      forcesReplace: false,
    });
    expect(JSON.stringify(plan.changes)).not.toContain('s3cr3t-value');
    const put = action(plan, 'put-module:https_edges.web.routes[edghtsrt_app].oidc');
    expect(put.request.method).toBe('PUT');
    expect(put.request.path).toBe('/edges/https/edghts_1/routes/edghtsrt_app/oidc');
    expect(put.sensitivePaths).toEqual(['/client_secret']);
  });

  it('manages the modules of an existing TLS edge and resolves CA names', () => {
    const desired = desiredState([
      entry('certificate_authorities', 'corp', { ca_pem: CORP_PEM }),
      entry('tls_edges', 'db', { mutual_tls: { certificate_authorities: ['corp'] } }, { id: 'edgtls_1' }),
    ]);
    const live = liveState([
      liveCa('ca_1', { pem: CORP_PEM, metadata: marked('corp') }),
      liveTlsEdge('edgtls_1'),
    ]);

    const plan = planChanges(desired, live, options);

    expect(action(plan, 'put-module:tls_edges.db.mutual_tls').request).toEqual({
      method: 'PUT',
      path: '/edges/tls/edgtls_1/mutual_tls',
      body: { enabled: true, certificate_authority_ids: ['ca_1'] },
    });
    expect(plan.summary.unchanged).toBe(1);
  });
});

describe('planChanges: safety', () => {
  it('refuses to replace a protected entry, even with force', () => {
    const desired = desiredState([
      entry('certificate_authorities', 'corp', { ca_pem: PARTNER_PEM }, { protect: true }),
    ]);
    const live = liveState([liveCa('ca_1', { pem: CORP_PEM, metadata: marked('corp') })]);

    const plan = planChanges(desired, live, { ...options, force: true });

    expect(plan.refusal?.code).toBe('protected');
    expect(plan.refusal?.message).toContain('certificate_authorities.corp');
  });

  it.each([
    {
      title: 'default: two deletes in a 12-object account are under the floor of 5',
      owned: 12,
      pruned: 2,
      maxDestroy: undefined,
      force: false,
      refused: false,
    },
    {
      title: 'default: six deletes in a 12-object account are over the floor of 5',
      owned: 12,
      pruned: 6,
      maxDestroy: undefined,
      force: false,
      refused: true,
    },
    {
      title: 'default: 10% of 80 owned is 8, above the floor',
      owned: 80,
      pruned: 8,
      maxDestroy: undefined,
      force: false,
      refused: false,
    },
    {
      title: 'default: over 10% of 80 owned',
      owned: 80,
      pruned: 9,
      maxDestroy: undefined,
      force: false,
      refused: true,
    },
    {
      title: 'an explicit count is exact, below the floor',
      owned: 12,
      pruned: 1,
      maxDestroy: { count: 0 },
      force: false,
      refused: true,
    },
    {
      title: 'default allows at least 1',
      owned: 3,
      pruned: 1,
      maxDestroy: undefined,
      force: false,
      refused: false,
    },
    { title: 'a count limit', owned: 5, pruned: 3, maxDestroy: { count: 3 }, force: false, refused: false },
    {
      title: 'over a count limit',
      owned: 5,
      pruned: 4,
      maxDestroy: { count: 3 },
      force: false,
      refused: true,
    },
    {
      title: 'a percent limit',
      owned: 10,
      pruned: 5,
      maxDestroy: { percent: 50 },
      force: false,
      refused: false,
    },
    { title: 'force accepts', owned: 12, pruned: 6, maxDestroy: undefined, force: true, refused: false },
  ])('max-destroy: $title', ({ owned, pruned, maxDestroy, force, refused }) => {
    const live = Array.from({ length: owned }, (_, index) =>
      liveRule(`ipr_${index}`, { cidr: `10.0.${index}.0/24`, action: 'deny', metadata: marked(`r${index}`) }),
    );
    const kept = live.slice(pruned).map((_, offset) => {
      const index = offset + pruned;
      return entry('ip_policy_rules', `r${index}`, rule(`10.0.${index}.0/24`, 'deny'));
    });

    const plan = planChanges(desiredState(kept), liveState(live), {
      ...options,
      force,
      ...(maxDestroy ? { maxDestroy } : {}),
    });

    expect(plan.summary.delete).toBe(pruned);
    expect(plan.refusal?.code === 'max-destroy').toBe(refused);
  });

  it('refuses an empty desired state for an owner that owns objects unless allowed', () => {
    const live = liveState([
      liveRule('ipr_1', { cidr: '10.0.0.0/24', action: 'deny', metadata: marked('a') }),
    ]);

    const refused = planChanges(desiredState([]), live, { ...options, force: true });
    const allowed = planChanges(desiredState([]), live, { ...options, allowEmpty: true });

    expect(refused.refusal?.code).toBe('empty-desired');
    expect(allowed.refusal).toBeUndefined();
    expect(allowed.summary.delete).toBe(1);
  });

  it('makes no deletes from an incomplete live state, and says so', () => {
    const live = liveState(
      [liveRule('ipr_1', { cidr: '10.0.0.0/24', action: 'deny', metadata: marked('a') })],
      {
        complete: false,
      },
    );

    const plan = planChanges(
      desiredState([entry('ip_policy_rules', 'b', rule('10.1.0.0/24', 'deny'))]),
      live,
      options,
    );

    expect(plan.summary.delete).toBe(0);
    expect(plan.summary.create).toBe(1);
    expect(plan.warnings?.[0]?.code).toBe('live_state_incomplete');
  });
});

describe('planChanges: targets, excludes, determinism', () => {
  const desired = desiredState([
    entry('certificate_authorities', 'corp', { ca_pem: CORP_PEM }),
    entry('https_edges', 'web', {
      hostports: ['web.example.com:443'],
      mutual_tls: { certificate_authorities: ['corp'] },
    }),
    entry('ip_policy_rules', 'office', rule('10.0.0.0/24', 'allow')),
  ]);

  it('narrows to a target and keeps what it depends on', () => {
    const plan = planChanges(desired, liveState([]), { ...options, targets: ['https_edges.web'] });

    expect(actionKeys(plan)).toEqual(['create:certificate_authorities.corp', 'create:https_edges.web']);
  });

  it('narrows to a whole kind given as KIND', () => {
    const plan = planChanges(desired, liveState([]), { ...options, targets: ['ip_policy_rules'] });

    expect(actionKeys(plan)).toEqual(['create:ip_policy_rules.office']);
    expect(plan.errors).toEqual([]);
  });

  it.each([
    ['ip_policy_rules.ofice', 'a misspelt name'],
    ['reserved_addrs', 'a kind with no entries and nothing owned'],
    ['https_edges.web2.mutual_tls', 'a module of an entry that does not exist'],
  ])('reports --target %s (%s) as target_not_found instead of planning nothing', (target) => {
    const plan = planChanges(desired, liveState([]), { ...options, targets: [target] });

    expect(plan.errors).toEqual([
      {
        code: 'target_not_found',
        message: `--target ${target} matches no entry of the manifests and no object this owner owns`,
      },
    ]);
    expect(plan.actions).toEqual([]);
  });

  it('accepts a target that matches an unchanged entry, a module of one, or an owned object to prune', () => {
    const live = liveState([
      liveRule('ipr_1', { cidr: '10.0.0.0/24', action: 'allow', metadata: marked('office') }),
      liveRule('ipr_2', { cidr: '10.9.0.0/24', action: 'deny', metadata: marked('gone') }),
    ]);
    const only = desiredState([entry('ip_policy_rules', 'office', rule('10.0.0.0/24', 'allow'))]);

    const unchanged = planChanges(only, live, { ...options, targets: ['ip_policy_rules.office'] });
    const module = planChanges(desired, liveState([]), {
      ...options,
      targets: ['https_edges.web.mutual_tls'],
    });
    const prune = planChanges(only, live, { ...options, force: true, targets: ['ip_policy_rules.gone'] });

    expect(unchanged.errors).toEqual([]);
    expect(unchanged.actions).toEqual([]);
    expect(module.errors).toEqual([]);
    expect(prune.errors).toEqual([]);
    expect(actionKeys(prune)).toEqual(['delete:ip_policy_rules.gone']);
  });

  it('reports a kept change that depends on an excluded one', () => {
    const plan = planChanges(desired, liveState([]), {
      ...options,
      excludes: ['certificate_authorities.corp'],
    });

    expect(plan.errors.map((error) => error.code)).toEqual(['excluded_dependency']);
    expect(actionKeys(plan)).not.toContain('create:certificate_authorities.corp');
  });

  it('gives byte-identical JSON for the same inputs', () => {
    const live = liveState([
      liveRule('ipr_1', { cidr: '10.5.0.0/24', action: 'deny', metadata: marked('x') }),
    ]);

    const first = JSON.stringify(planChanges(desired, live, { ...options, force: true }));
    const second = JSON.stringify(planChanges(desired, live, { ...options, force: true }));

    expect(first).toBe(second);
  });
});
