import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type AccountSnapshot,
  type AnsweredWrite,
  emptySnapshot,
  findLostValues,
  findWidenings,
  momentsOf,
} from './access-model.js';

const P1 = 'ipp_one';
const P2 = 'ipp_two';

function rule(id: string, cidr: string, action: 'allow' | 'deny', policy = P1): Record<string, unknown> {
  return { id, cidr, action, ip_policy: { id: policy, uri: 'x' } };
}

const post = (body: Record<string, unknown>): AnsweredWrite => ({
  method: 'POST',
  path: '/ip_policy_rules',
  body,
});
const remove = (id: string): AnsweredWrite => ({ method: 'DELETE', path: `/ip_policy_rules/${id}` });
const patch = (body: Record<string, unknown>): AnsweredWrite => ({
  method: 'PATCH',
  path: `/ip_policy_rules/${String(body.id)}`,
  body,
});

function withRules(...rules: Record<string, unknown>[]): AccountSnapshot {
  return { ...emptySnapshot(), rules: new Map(rules.map((raw) => [String(raw.id), raw])) };
}

/** Runs the writes from `start` and reports the widenings as `moment subject opening`. */
function check(start: AccountSnapshot, writes: readonly AnsweredWrite[], end?: AccountSnapshot): string[] {
  const moments = momentsOf(start, writes);
  const last = end ?? (moments.at(-1) as AccountSnapshot);
  return findWidenings(start, last, moments).map((w) => `${w.moment} ${w.subject} ${w.opening}`);
}

const broadAllow = rule('ipr_allow', '10.0.0.0/16', 'allow');
const narrowDeny = rule('ipr_deny', '10.0.1.0/24', 'deny');

describe('access checker: addresses', () => {
  it.each<{ name: string; start: AccountSnapshot; writes: AnsweredWrite[]; expected: string[] }>([
    {
      name: 'a deny deleted then re-created (a rename as delete + create) opens its range in between',
      start: withRules(broadAllow, narrowDeny),
      writes: [remove('ipr_deny'), post(rule('ipr_new', '10.0.1.0/24', 'deny'))],
      expected: ['1 ip_policy ipp_one 10.0.1.0 – 10.0.1.255'],
    },
    {
      name: 'the deny created first and the old one deleted after opens nothing',
      start: withRules(broadAllow, narrowDeny),
      writes: [post(rule('ipr_new', '10.0.1.0/24', 'deny', P2)), remove('ipr_deny'), remove('ipr_new')],
      expected: [],
    },
    {
      name: 'an allow created before the deny that narrows it opens the deny range',
      start: withRules(),
      writes: [post(broadAllow), post(narrowDeny)],
      expected: ['1 ip_policy ipp_one 10.0.1.0 – 10.0.1.255'],
    },
    {
      name: 'a deny created before the allow it narrows opens nothing',
      start: withRules(),
      writes: [post(narrowDeny), post(broadAllow)],
      expected: [],
    },
    {
      name: 'a deny moved by PATCH before a new deny takes its old range opens the old range',
      start: withRules(broadAllow, narrowDeny),
      writes: [
        patch(rule('ipr_deny', '10.0.2.0/24', 'deny')),
        post(rule('ipr_taker', '10.0.1.0/24', 'deny')),
      ],
      expected: ['1 ip_policy ipp_one 10.0.1.0 – 10.0.1.255'],
    },
    {
      name: 'a deny moved to a range a new allow covers: the allow first opens the new range',
      start: withRules(narrowDeny),
      writes: [
        post(rule('ipr_wide', '10.0.0.0/16', 'allow')),
        patch(rule('ipr_deny', '10.0.2.0/24', 'deny')),
      ],
      expected: ['1 ip_policy ipp_one 10.0.2.0 – 10.0.2.255'],
    },
    {
      name: 'rules of another policy decide nothing for this one',
      start: withRules(broadAllow, rule('ipr_other', '10.0.1.0/24', 'deny', P2)),
      writes: [remove('ipr_other')],
      expected: [],
    },
    {
      name: 'IPv6 ranges are cut like IPv4 ones, and the families never mix',
      start: withRules(
        rule('ipr_v6allow', '2001:db8::/32', 'allow'),
        rule('ipr_v6deny', '2001:db8:1::/48', 'deny'),
      ),
      writes: [remove('ipr_v6deny'), post(rule('ipr_v6deny2', '2001:db8:1::/48', 'deny'))],
      expected: ['1 ip_policy ipp_one 2001:db8:1:0:0:0:0:0 – 2001:db8:1:ffff:ffff:ffff:ffff:ffff'],
    },
    {
      name: 'an allow→deny flip: the deny first is refused by the service, so the allow goes first and nothing opens',
      start: withRules(rule('ipr_flip', '10.0.1.0/24', 'allow')),
      writes: [remove('ipr_flip'), post(rule('ipr_flip2', '10.0.1.0/24', 'deny'))],
      expected: [],
    },
    {
      name: 'an allow parked on a third range during a swap opens that range',
      start: withRules(rule('ipr_a', '10.0.1.0/24', 'deny'), rule('ipr_b', '10.0.2.0/24', 'allow')),
      writes: [
        patch(rule('ipr_b', '10.0.3.0/24', 'allow')),
        patch(rule('ipr_a', '10.0.2.0/24', 'deny')),
        patch(rule('ipr_b', '10.0.1.0/24', 'allow')),
      ],
      expected: ['1 ip_policy ipp_one 10.0.3.0 – 10.0.3.255', '2 ip_policy ipp_one 10.0.3.0 – 10.0.3.255'],
    },
  ])('$name', ({ start, writes, expected }) => {
    expect(check(start, writes)).toEqual(expected);
  });

  it('a moment more open than the start but no more than the end is no widening', () => {
    const start = withRules(narrowDeny);
    const end = withRules(broadAllow);

    const found = check(
      start,
      [
        post(rule('ipr_mid', '10.0.5.0/24', 'allow')),
        post(broadAllow),
        remove('ipr_deny'),
        remove('ipr_mid'),
      ],
      end,
    );

    expect(found).toEqual([]);
  });
});

describe('access checker: endpoints and guards', () => {
  const tcp = (id: string, ipRestriction: unknown): AccountSnapshot => ({
    ...withRules(narrowDeny, rule('ipr_p2allow', '10.0.0.0/8', 'allow', P2)),
    tcpEdges: new Map([[id, { id, ip_restriction: ipRestriction }]]),
  });
  const restriction = (...policies: string[]) => ({
    enabled: true,
    ip_policies: policies.map((id) => ({ id, uri: 'x' })),
  });

  it('an endpoint checks the rules of all its policies together', () => {
    const start = tcp('edgtcp_1', restriction(P1, P2));

    const found = check(start, [remove('ipr_deny'), post(rule('ipr_again', '10.0.1.0/24', 'deny'))]);

    expect(found).toEqual(['1 tcp_edge edgtcp_1 10.0.1.0 – 10.0.1.255']);
  });

  it('an endpoint whose restriction is removed is open to every address', () => {
    const start = tcp('edgtcp_1', restriction(P2));
    const writes: AnsweredWrite[] = [
      { method: 'DELETE', path: '/edges/tcp/edgtcp_1/ip_restriction' },
      { method: 'PUT', path: '/edges/tcp/edgtcp_1/ip_restriction', body: restriction(P1, P2) },
    ];

    const found = check(start, writes);

    expect(found).toEqual([
      '1 tcp_edge edgtcp_1 0.0.0.0 – 9.255.255.255',
      '1 tcp_edge edgtcp_1 11.0.0.0 – 255.255.255.255',
      '1 tcp_edge edgtcp_1 0:0:0:0:0:0:0:0 – ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ]);
  });

  const mutualTls = (...cas: string[]) => ({
    enabled: true,
    certificate_authorities: cas.map((id) => ({ id, uri: 'x' })),
  });
  const https = (mtls: unknown, oidc: unknown): AccountSnapshot => ({
    ...emptySnapshot(),
    cas: new Map([
      ['ca_1', { id: 'ca_1', ca_pem: 'one' }],
      ['ca_2', { id: 'ca_2', ca_pem: 'two' }],
    ]),
    httpsEdges: new Map([
      ['edghts_1', { id: 'edghts_1', mutual_tls: mtls, routes: [{ id: 'edghtsrt_1', oidc }] }],
    ]),
  });
  const edgePatch = (mtls: unknown, oidc: unknown): AnsweredWrite => ({
    method: 'PATCH',
    path: '/edges/https/edghts_1',
    body: { id: 'edghts_1', mutual_tls: mtls, routes: [{ id: 'edghtsrt_1', oidc }] },
  });

  it.each<{
    name: string;
    start: AccountSnapshot;
    writes: AnsweredWrite[];
    end?: AccountSnapshot;
    expected: string[];
  }>([
    {
      name: 'mutual TLS removed before OIDC is put leaves the route unguarded',
      start: https(mutualTls('ca_1'), null),
      writes: [
        { method: 'DELETE', path: '/edges/https/edghts_1/mutual_tls' },
        { method: 'PUT', path: '/edges/https/edghts_1/routes/edghtsrt_1/oidc', body: { enabled: true } },
      ],
      expected: ['1 route edghtsrt_1 guard any client'],
    },
    {
      name: 'OIDC put before mutual TLS is removed keeps the route guarded',
      start: https(mutualTls('ca_1'), null),
      writes: [
        { method: 'PUT', path: '/edges/https/edghts_1/routes/edghtsrt_1/oidc', body: { enabled: true } },
        { method: 'DELETE', path: '/edges/https/edghts_1/mutual_tls' },
      ],
      expected: [],
    },
    {
      name: 'a CA accepted in between that neither end accepts opens the guard to it',
      start: https(mutualTls('ca_1'), null),
      writes: [edgePatch(mutualTls('ca_1', 'ca_2'), null), edgePatch(mutualTls('ca_1'), null)],
      end: https(mutualTls('ca_1'), null),
      expected: [
        `1 route edghtsrt_1 guard ca pem ${createHash('sha256').update('two').digest('hex').slice(0, 12)}`,
      ],
    },
    {
      name: 'OIDC disabled is no guard',
      start: https(null, { enabled: true }),
      writes: [edgePatch(null, { enabled: false }), edgePatch(null, { enabled: true })],
      end: https(null, { enabled: true }),
      expected: ['1 route edghtsrt_1 guard any client'],
    },
  ])('$name', ({ start, writes, end, expected }) => {
    expect(check(start, writes, end)).toEqual(expected);
  });
});

describe('access checker: stable values', () => {
  const addr = (id: string, value: string) => ({ id, addr: value, region: 'us' });

  it('reports the moments at which a reserved address both ends hold is gone', () => {
    const start: AccountSnapshot = {
      ...emptySnapshot(),
      reservedAddrs: new Map([['ra_us', addr('ra_us', '1.tcp:1')]]),
    };
    const writes: AnsweredWrite[] = [
      { method: 'POST', path: '/reserved_addrs', body: addr('ra_in', '2.tcp:2') },
      { method: 'DELETE', path: '/reserved_addrs/ra_us' },
    ];

    const lost = findLostValues(start, start, momentsOf(start, writes));

    expect(lost).toEqual([{ moment: 2, value: 'addr 1.tcp:1' }]);
  });

  it('a value only one end holds may go', () => {
    const start: AccountSnapshot = {
      ...emptySnapshot(),
      reservedAddrs: new Map([['ra_us', addr('ra_us', '1.tcp:1')]]),
    };
    const moments = momentsOf(start, [{ method: 'DELETE', path: '/reserved_addrs/ra_us' }]);

    expect(findLostValues(start, moments[1] as AccountSnapshot, moments)).toEqual([]);
  });
});
