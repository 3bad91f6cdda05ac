import { describe, expect, it } from 'vitest';
import { KINDS, kindByName } from '../../src/kinds/registry.js';

const REF = (id: string) => ({ id, uri: `https://api.example.test/x/${id}` });
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
const marker = '{"edgesync":{"name":"n","owner":"default"},"team":"net"}';

/** The built-in kinds in the order manifests, plans, exports and the emulator list them. */
const KIND_NAMES = [
  'ip_policy_rules',
  'reserved_addrs',
  'certificate_authorities',
  'https_edges',
  'tcp_edges',
  'tls_edges',
] as const;

describe('registry', () => {
  it('lists every kind once, in the documented order', () => {
    expect(KINDS.map((kind) => kind.name)).toEqual([...KIND_NAMES]);
  });

  it.each(KIND_NAMES)('kindByName(%s) finds it', (name) => {
    expect(kindByName(name).name).toBe(name);
  });

  it('gives each kind the API cannot list a flag of its own for export to name its IDs, and no other kind one', () => {
    const flags = KINDS.map((kind) => [kind.name, kind.ownership, kind.exportIdFlag] as const);

    expect(
      flags.filter(([, ownership, flag]) => (ownership === 'modules-only') !== (flag !== undefined)),
    ).toEqual([]);
    expect(KINDS.flatMap((kind) => kind.exportIdFlag ?? [])).toEqual(['--tcp-edge', '--tls-edge']);
  });
});

/** Desired and live of the same intent must normalize equal: nothing spurious in a plan. */
describe.each([
  {
    label: 'ip rule: bare IPv4 vs /32, metadata key order',
    kind: 'ip_policy_rules' as const,
    desired: { cidr: '203.0.113.7', ip_policy_id: 'ipp_1', action: 'allow', metadata: { team: 'net' } },
    live: { id: 'ipr_1', cidr: '203.0.113.7/32', ip_policy: REF('ipp_1'), action: 'allow', metadata: marker },
  },
  {
    label: 'ip rule: IPv6 uppercase vs compressed, empty description',
    kind: 'ip_policy_rules' as const,
    desired: { cidr: '2001:DB8:0:0::/48', ip_policy_id: 'ipp_1', action: 'deny', description: '' },
    live: { id: 'ipr_1', cidr: '2001:db8::/48', ip_policy: REF('ipp_1'), action: 'deny', description: '' },
  },
  {
    label: 'reserved addr: region default, null endpoint configuration',
    kind: 'reserved_addrs' as const,
    desired: { description: 'ssh' },
    live: {
      id: 'ra_1',
      description: 'ssh',
      region: 'us',
      addr: '1.tcp.example:123',
      endpoint_configuration: null,
    },
  },
  {
    label: 'reserved addr: endpoint configuration Ref',
    kind: 'reserved_addrs' as const,
    desired: { description: 'ssh', region: 'eu', endpoint_configuration_id: 'ec_1' },
    live: { id: 'ra_1', description: 'ssh', region: 'eu', addr: 'x:1', endpoint_configuration: REF('ec_1') },
  },
  {
    label: 'CA: PEM without trailing newline, outputs ignored',
    kind: 'certificate_authorities' as const,
    desired: { ca_pem: PEM, description: 'corp' },
    live: {
      id: 'ca_1',
      ca_pem: `${PEM}\n`,
      description: 'corp',
      subject_common_name: 'Corp Root',
      not_before: '2020-01-01T00:00:00Z',
      not_after: '2030-01-01T00:00:00Z',
      key_usages: ['cert_sign'],
      extended_key_usages: [],
    },
  },
  {
    label: 'HTTPS edge: hostport order, module defaults, Refs',
    kind: 'https_edges' as const,
    desired: {
      hostports: ['b.example.com:443', 'a.example.com:443', 'a.example.com:443'],
      mutual_tls: { certificate_authorities: ['ca_2', 'ca_1'] },
      tls_termination: { min_version: '1.2' },
    },
    live: {
      id: 'edghts_1',
      hostports: ['a.example.com:443', 'b.example.com:443'],
      mutual_tls: { enabled: true, certificate_authorities: [REF('ca_1'), REF('ca_2')] },
      tls_termination: { enabled: true, terminate_at: 'edge', min_version: '1.2' },
      routes: [],
    },
  },
  {
    label: 'HTTPS edge: modules null on both sides',
    kind: 'https_edges' as const,
    desired: { hostports: ['a.example.com:443'], mutual_tls: null, tls_termination: null },
    live: {
      id: 'edghts_1',
      hostports: ['a.example.com:443'],
      mutual_tls: null,
      tls_termination: null,
      routes: [],
    },
  },
  {
    label: 'TCP edge: ip restriction policies as Refs vs IDs',
    kind: 'tcp_edges' as const,
    desired: { ip_restriction: { ip_policies: ['ipp_b', 'ipp_a'] } },
    live: { id: 'edgtcp_1', ip_restriction: { enabled: true, ip_policies: [REF('ipp_a'), REF('ipp_b')] } },
  },
  {
    label: 'TLS edge: terminate_at default, min_version null',
    kind: 'tls_edges' as const,
    desired: { mutual_tls: { enabled: false, certificate_authorities: [] }, tls_termination: {} },
    live: {
      id: 'edgtls_1',
      mutual_tls: { enabled: false, certificate_authorities: [] },
      tls_termination: { enabled: true, terminate_at: 'edge', min_version: null },
    },
  },
  {
    label: 'TLS edge: module unset on the service, null in the manifest',
    kind: 'tls_edges' as const,
    desired: { mutual_tls: null, tls_termination: null },
    live: { id: 'edgtls_1', mutual_tls: null, tls_termination: null },
  },
])('$label', ({ kind, desired, live }) => {
  it('normalizes the desired spec and the live object equal on every compared field and module', () => {
    const k = kindByName(kind);

    const normalizedDesired = k.normalizeDesired(desired);
    const liveSpec = k.fromApi(live).spec;

    for (const key of [
      ...k.fields.map((field) => field.name),
      ...k.modules.filter((m) => m.scope === 'resource').map((m) => m.name),
    ]) {
      expect(normalizedDesired[key], key).toEqual(liveSpec[key]);
    }
  });
});

describe('fromApi', () => {
  it('parses the marker out of metadata and keeps the user part', () => {
    const live = kindByName('ip_policy_rules').fromApi({
      id: 'ipr_1',
      created_at: '2026-01-01T00:00:00Z',
      cidr: '10.0.0.0/8',
      ip_policy: REF('ipp_1'),
      action: 'allow',
      metadata: marker,
    });

    expect(live).toMatchObject({
      kind: 'ip_policy_rules',
      id: 'ipr_1',
      createdAt: '2026-01-01T00:00:00Z',
      marker: { owner: 'default', name: 'n' },
      spec: { cidr: '10.0.0.0/8', ip_policy_id: 'ipp_1', action: 'allow', metadata: { team: 'net' } },
    });
    expect(live.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('leaves metadata out of the spec when only the marker is there', () => {
    const live = kindByName('certificate_authorities').fromApi({
      id: 'ca_1',
      ca_pem: PEM,
      metadata: '{"edgesync":{"name":"n","owner":"o"}}',
    });

    expect(live.spec).not.toHaveProperty('metadata');
    expect(live.marker).toEqual({ owner: 'o', name: 'n' });
  });

  it('keeps non-JSON metadata as the raw string with no marker', () => {
    const live = kindByName('reserved_addrs').fromApi({ id: 'ra_1', metadata: 'legacy' });

    expect(live.marker).toBeNull();
    expect(live.spec.metadata).toBe('legacy');
  });

  it('moves CA output-only fields to outputs', () => {
    const live = kindByName('certificate_authorities').fromApi({
      id: 'ca_1',
      ca_pem: PEM,
      subject_common_name: 'Corp',
      key_usages: ['x'],
    });

    expect(live.outputs).toEqual({ subject_common_name: 'Corp', key_usages: ['x'] });
    expect(live.spec).toEqual({ ca_pem: `${PEM}\n` });
  });

  it('moves the reserved address to outputs', () => {
    expect(kindByName('reserved_addrs').fromApi({ id: 'ra_1', addr: 'h:1' }).outputs).toEqual({
      addr: 'h:1',
    });
  });

  it('fingerprints the raw object independently of key order and changes with any field', () => {
    const kind = kindByName('ip_policy_rules');
    const a = kind.fromApi({ id: 'ipr_1', cidr: '10.0.0.0/8', action: 'allow' });
    const b = kind.fromApi({ action: 'allow', cidr: '10.0.0.0/8', id: 'ipr_1' });
    const c = kind.fromApi({ id: 'ipr_1', cidr: '10.0.0.0/8', action: 'deny' });

    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).not.toBe(c.fingerprint);
  });

  it('reads HTTPS edge routes: oidc normalized, other set modules as read, unset ones left out', () => {
    const live = kindByName('https_edges').fromApi({
      id: 'edghts_1',
      hostports: ['w:443'],
      mutual_tls: null,
      tls_termination: null,
      routes: [
        {
          id: 'edghtsrt_1',
          edge_id: 'edghts_1',
          uri: 'u',
          match_type: 'path_prefix',
          match: '/app',
          oidc: {
            enabled: true,
            issuer: 'https://i',
            client_id: 'c',
            client_secret: 's',
            scopes: ['openid', 'email'],
          },
          compression: { enabled: true },
          backend: null,
        },
      ],
    });

    expect(live.spec.routes).toEqual([
      {
        id: 'edghtsrt_1',
        match_type: 'path_prefix',
        match: '/app',
        oidc: {
          enabled: true,
          options_passthrough: false,
          cookie_prefix: '',
          inactivity_timeout: 0,
          maximum_duration: 0,
          issuer: 'https://i',
          client_id: 'c',
          client_secret: 's',
          scopes: ['email', 'openid'],
        },
        compression: { enabled: true },
      },
    ]);
  });

  it('never carries the secrets of read-only route modules, while the fingerprint still sees them', () => {
    const edge = (secret: string) => ({
      id: 'edghts_1',
      hostports: [],
      routes: [
        {
          id: 'edghtsrt_1',
          match_type: 'exact_path',
          match: '/hook',
          oidc: null,
          webhook_verification: { enabled: true, provider: 'github', secret },
          oauth: {
            enabled: true,
            provider: { github: { client_id: 'id', client_secret: secret, scopes: ['read:org'] } },
          },
        },
      ],
    });
    const kind = kindByName('https_edges');

    const live = kind.fromApi(edge('hunter2'));
    const rotated = kind.fromApi(edge('hunter3'));

    expect(JSON.stringify(live.spec)).not.toContain('hunter2');
    expect(live.spec.routes).toEqual([
      expect.objectContaining({
        webhook_verification: { enabled: true, provider: 'github', secret: '(sensitive)' },
        oauth: {
          enabled: true,
          provider: { github: { client_id: 'id', client_secret: '(sensitive)', scopes: ['read:org'] } },
        },
      }),
    ]);
    expect(rotated.fingerprint).not.toBe(live.fingerprint);
  });

  it.each(KINDS.map((kind) => [kind.name, kind] as const))(
    '%s rejects a body that is not an object with an id',
    (_name, kind) => {
      expect(() => kind.fromApi('nope')).toThrow(
        expect.objectContaining({ code: 'unexpected_response', kind: kind.name }),
      );
      expect(() => kind.fromApi({})).toThrow(expect.objectContaining({ code: 'unexpected_response' }));
    },
  );
});

describe('normalizeDesired', () => {
  // The planner compares specs as normalized, without sorting a set-like list again (compare-fields.ts).
  it.each(
    KINDS.flatMap((kind) => [
      ...kind.fields
        .filter((rule) => rule.setLike === true)
        .map((rule) => [kind.name, rule.name, { [rule.name]: ['b', 'a', 'b'] }, [rule.name]] as const),
      ...kind.modules.flatMap((module) =>
        module.fields
          .filter((rule) => rule.setLike === true)
          .map((rule) => {
            const value = { [rule.name]: ['b', 'a', 'b'] };
            return module.scope === 'resource'
              ? ([
                  kind.name,
                  `${module.name}.${rule.name}`,
                  { [module.name]: value },
                  [module.name, rule.name],
                ] as const)
              : ([
                  kind.name,
                  `routes[0].${module.name}.${rule.name}`,
                  { routes: [{ match_type: 'path_prefix', match: '/', [module.name]: value }] },
                  ['routes', '0', module.name, rule.name],
                ] as const);
          }),
      ),
    ]),
  )('gives %s %s, a set-like list, sorted and without duplicates', (kind, _field, spec, path) => {
    const normalized = kindByName(kind).normalizeDesired(spec);

    const value = path.reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], normalized);
    expect(value).toEqual(['a', 'b']);
  });

  it('gives the route oidc module its defaults and sorts its scopes', () => {
    const spec = kindByName('https_edges').normalizeDesired({
      hostports: ['w:443'],
      routes: [
        {
          match_type: 'path_prefix',
          match: '/app',
          oidc: { issuer: 'i', client_id: 'c', client_secret: 's', scopes: ['b', 'a'] },
        },
      ],
    });

    expect(spec.routes).toEqual([
      {
        match_type: 'path_prefix',
        match: '/app',
        oidc: {
          enabled: true,
          options_passthrough: false,
          cookie_prefix: '',
          inactivity_timeout: 0,
          maximum_duration: 0,
          issuer: 'i',
          client_id: 'c',
          client_secret: 's',
          scopes: ['a', 'b'],
        },
      },
    ]);
  });

  it('keeps an absent module absent (left alone) and a null module null (removed)', () => {
    const spec = kindByName('tls_edges').normalizeDesired({ mutual_tls: null });

    expect(spec).toEqual({ mutual_tls: null });
  });

  it('keeps references as given (names or IDs), sorted', () => {
    const spec = kindByName('https_edges').normalizeDesired({
      hostports: [],
      mutual_tls: { certificate_authorities: ['corp-root', 'ca_1'] },
    });

    expect(spec.mutual_tls).toEqual({ enabled: true, certificate_authorities: ['ca_1', 'corp-root'] });
  });
});
