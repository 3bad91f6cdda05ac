import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

const POLICY = 'ipp_OfficeVpnPolicy000000000001';
const OTHER_POLICY = 'ipp_BlockListPolicy000000000001';
const EC = 'ec_BastionEndpointConfig000001';
const EDGE = 'edghts_WebEdge00000000000000000001';
const ROUTE = 'edghtsrt_WebAppRoute0000000000000001';
const TCP = 'edgtcp_SshEdge00000000000000000001';
const TLS = 'edgtls_DbEdge000000000000000000001';
const MISSING_CA = 'ca_Missing000000000000000000000';
const corpRoot = readFileSync('test/fixtures/certs/corp-root.pem', 'utf8');
const leaf = readFileSync('test/fixtures/certs/leaf-not-ca.pem', 'utf8');

const RULE = { cidr: '10.1.0.0/16', ip_policy_id: POLICY, action: 'allow' };
const OIDC = { issuer: 'https://accounts.example.com', client_id: 'app', client_secret: 's3cret' };
const route = (extra: Record<string, unknown>) => ({ match_type: 'path_prefix', match: '/x', ...extra });

interface Case {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly status: number;
  readonly code: string;
  readonly field?: string;
}

const CASES: readonly Case[] = [
  {
    name: 'rule without cidr',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, cidr: undefined },
    status: 400,
    code: 'invalid_field',
    field: 'cidr',
  },
  {
    name: 'rule with a bad cidr',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, cidr: '10.0.0.300/8' },
    status: 400,
    code: 'invalid_field',
    field: 'cidr',
  },
  {
    name: 'rule with host bits set',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, cidr: '10.0.0.5/24' },
    status: 400,
    code: 'invalid_field',
    field: 'cidr',
  },
  {
    name: 'rule with an IPv6 prefix over 128',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, cidr: '2001:db8::/129' },
    status: 400,
    code: 'invalid_field',
    field: 'cidr',
  },
  {
    name: 'rule with a bad action',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, action: 'maybe' },
    status: 400,
    code: 'invalid_field',
    field: 'action',
  },
  {
    name: 'rule with a numeric cidr',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, cidr: 10 },
    status: 400,
    code: 'invalid_field',
    field: 'cidr',
  },
  {
    name: 'rule with an unknown field',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, colour: 'red' },
    status: 400,
    code: 'unknown_field',
    field: 'colour',
  },
  {
    name: 'rule with a missing policy',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, ip_policy_id: 'ipp_Missing00000000000000000000' },
    status: 400,
    code: 'reference_not_found',
    field: 'ip_policy_id',
  },
  {
    name: 'rule with a wrong-prefix policy',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, ip_policy_id: EC },
    status: 400,
    code: 'invalid_id',
    field: 'ip_policy_id',
  },
  {
    name: 'rule description of 256 bytes',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, description: 'a'.repeat(256) },
    status: 400,
    code: 'invalid_field',
    field: 'description',
  },
  {
    name: 'rule description of 128 two-byte characters (256 bytes)',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, description: 'é'.repeat(128) },
    status: 400,
    code: 'invalid_field',
    field: 'description',
  },
  {
    name: 'rule metadata of 4097 bytes',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, metadata: 'm'.repeat(4097) },
    status: 400,
    code: 'invalid_field',
    field: 'metadata',
  },
  {
    name: 'rule PATCH of action',
    method: 'PATCH',
    path: '/ip_policy_rules/{rule}',
    body: { action: 'deny' },
    status: 400,
    code: 'unknown_field',
    field: 'action',
  },
  {
    name: 'rule PATCH to a cidr its policy already has',
    method: 'PATCH',
    path: '/ip_policy_rules/{rule}',
    body: { cidr: '192.0.2.0/24' },
    status: 400,
    code: 'conflict',
    field: 'cidr',
  },
  {
    name: 'second rule for the same cidr and policy',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { ...RULE, cidr: '192.0.2.0/24' },
    status: 400,
    code: 'conflict',
    field: 'cidr',
  },
  {
    name: 'body that is a list',
    method: 'POST',
    path: '/ip_policy_rules',
    body: [RULE],
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'body that is not JSON',
    method: 'POST',
    path: '/ip_policy_rules',
    body: '{"cidr":',
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'reserved address in an unknown region',
    method: 'POST',
    path: '/reserved_addrs',
    body: { region: 'mars' },
    status: 400,
    code: 'invalid_field',
    field: 'region',
  },
  {
    name: 'reserved address with addr',
    method: 'POST',
    path: '/reserved_addrs',
    body: { addr: 'x:1' },
    status: 400,
    code: 'unknown_field',
    field: 'addr',
  },
  {
    name: 'reserved address metadata of 4097 bytes',
    method: 'POST',
    path: '/reserved_addrs',
    body: { metadata: 'm'.repeat(4097) },
    status: 400,
    code: 'invalid_field',
    field: 'metadata',
  },
  {
    name: 'reserved address PATCH of region',
    method: 'PATCH',
    path: '/reserved_addrs/{addr}',
    body: { region: 'eu' },
    status: 400,
    code: 'unknown_field',
    field: 'region',
  },
  {
    name: 'reserved address PATCH to a missing endpoint configuration',
    method: 'PATCH',
    path: '/reserved_addrs/{addr}',
    body: { endpoint_configuration_id: 'ec_Missing0000000000000000000000' },
    status: 400,
    code: 'reference_not_found',
    field: 'endpoint_configuration_id',
  },
  {
    name: 'CA without ca_pem',
    method: 'POST',
    path: '/certificate_authorities',
    body: {},
    status: 400,
    code: 'invalid_field',
    field: 'ca_pem',
  },
  {
    name: 'CA that is a leaf certificate',
    method: 'POST',
    path: '/certificate_authorities',
    body: { ca_pem: leaf },
    status: 400,
    code: 'invalid_field',
    field: 'ca_pem',
  },
  {
    name: 'CA that is not a certificate',
    method: 'POST',
    path: '/certificate_authorities',
    body: { ca_pem: 'hello' },
    status: 400,
    code: 'invalid_field',
    field: 'ca_pem',
  },
  {
    name: 'CA with a corrupt certificate',
    method: 'POST',
    path: '/certificate_authorities',
    body: { ca_pem: corpRoot.replace(/M/g, 'A') },
    status: 400,
    code: 'invalid_field',
    field: 'ca_pem',
  },
  {
    name: 'CA with output-only fields',
    method: 'POST',
    path: '/certificate_authorities',
    body: { ca_pem: corpRoot, subject_common_name: 'x' },
    status: 400,
    code: 'unknown_field',
    field: 'subject_common_name',
  },
  {
    name: 'CA PATCH of ca_pem',
    method: 'PATCH',
    path: '/certificate_authorities/{ca}',
    body: { ca_pem: corpRoot },
    status: 400,
    code: 'unknown_field',
    field: 'ca_pem',
  },
  {
    name: 'edge with a bad hostport',
    method: 'POST',
    path: '/edges/https',
    body: { hostports: ['web.example.com'] },
    status: 400,
    code: 'invalid_field',
    field: 'hostports',
  },
  {
    name: 'edge with hostports not a list',
    method: 'POST',
    path: '/edges/https',
    body: { hostports: 'a.example.com:443' },
    status: 400,
    code: 'invalid_field',
    field: 'hostports',
  },
  {
    name: 'edge mutual TLS with a missing CA',
    method: 'POST',
    path: '/edges/https',
    body: { mutual_tls: { certificate_authority_ids: [MISSING_CA] } },
    status: 400,
    code: 'reference_not_found',
    field: 'mutual_tls.certificate_authority_ids',
  },
  {
    name: 'edge mutual TLS with an unknown field',
    method: 'POST',
    path: '/edges/https',
    body: { mutual_tls: { certificate_authorities: [] } },
    status: 400,
    code: 'unknown_field',
    field: 'mutual_tls.certificate_authorities',
  },
  {
    name: 'edge TLS termination with a bad version',
    method: 'PATCH',
    path: `/edges/https/${EDGE}`,
    body: { tls_termination: { min_version: '1.4' } },
    status: 400,
    code: 'invalid_field',
    field: 'tls_termination.min_version',
  },
  {
    name: 'edge TLS termination with terminate_at',
    method: 'POST',
    path: '/edges/https',
    body: { tls_termination: { terminate_at: 'upstream' } },
    status: 400,
    code: 'invalid_field',
    field: 'tls_termination.terminate_at',
  },
  {
    name: 'edge mutual_tls enabled not a boolean',
    method: 'PUT',
    path: `/edges/https/${EDGE}/mutual_tls`,
    body: { enabled: 'yes', certificate_authority_ids: [] },
    status: 400,
    code: 'invalid_field',
    field: 'enabled',
  },
  {
    name: 'OIDC without issuer',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, issuer: undefined },
    status: 400,
    code: 'invalid_field',
    field: 'issuer',
  },
  {
    name: 'OIDC issuer not a URL',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, issuer: 'accounts' },
    status: 400,
    code: 'invalid_field',
    field: 'issuer',
  },
  {
    name: 'OIDC negative timeout',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, inactivity_timeout: -1 },
    status: 400,
    code: 'invalid_field',
    field: 'inactivity_timeout',
  },
  {
    name: 'OIDC fractional duration',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, maximum_duration: 1.5 },
    status: 400,
    code: 'invalid_field',
    field: 'maximum_duration',
  },
  {
    name: 'OIDC scopes not strings',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, scopes: [1] },
    status: 400,
    code: 'invalid_field',
    field: 'scopes',
  },
  {
    name: 'OIDC unknown field',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, audience: 'x' },
    status: 400,
    code: 'unknown_field',
    field: 'audience',
  },
  {
    name: 'TCP restriction with a missing policy',
    method: 'PUT',
    path: `/edges/tcp/${TCP}/ip_restriction`,
    body: { ip_policy_ids: ['ipp_Missing00000000000000000000'] },
    status: 400,
    code: 'reference_not_found',
    field: 'ip_policy_ids',
  },
  {
    name: 'TCP restriction without ip_policy_ids',
    method: 'PUT',
    path: `/edges/tcp/${TCP}/ip_restriction`,
    body: { enabled: true },
    status: 400,
    code: 'invalid_field',
    field: 'ip_policy_ids',
  },
  {
    name: 'TLS mutual TLS with a CA ID of the wrong prefix',
    method: 'PUT',
    path: `/edges/tls/${TLS}/mutual_tls`,
    body: { certificate_authority_ids: [POLICY] },
    status: 400,
    code: 'invalid_id',
    field: 'certificate_authority_ids',
  },
  {
    name: 'TLS termination with a bad terminate_at',
    method: 'PUT',
    path: `/edges/tls/${TLS}/tls_termination`,
    body: { terminate_at: 'middle' },
    status: 400,
    code: 'invalid_field',
    field: 'terminate_at',
  },
  {
    name: 'TLS termination upstream with min_version',
    method: 'PUT',
    path: `/edges/tls/${TLS}/tls_termination`,
    body: { terminate_at: 'upstream', min_version: '1.2' },
    status: 400,
    code: 'invalid_field',
    field: 'min_version',
  },
  {
    name: 'route with a bad match_type',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ match_type: 'regex' }),
    status: 400,
    code: 'invalid_field',
    field: 'match_type',
  },
  {
    name: 'route without match',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: { match_type: 'exact_path' },
    status: 400,
    code: 'invalid_field',
    field: 'match',
  },
  {
    name: 'circuit breaker with 129 buckets',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ circuit_breaker: { num_buckets: 129 } }),
    status: 400,
    code: 'invalid_field',
    field: 'circuit_breaker.num_buckets',
  },
  {
    name: 'circuit breaker threshold above 1',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ circuit_breaker: { error_threshold_percentage: 50 } }),
    status: 400,
    code: 'invalid_field',
    field: 'circuit_breaker.error_threshold_percentage',
  },
  {
    name: 'circuit breaker threshold below 0',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ circuit_breaker: { error_threshold_percentage: -0.1 } }),
    status: 400,
    code: 'invalid_field',
    field: 'circuit_breaker.error_threshold_percentage',
  },
  {
    name: 'OAuth client_id without client_secret',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ oauth: { provider: { google: { client_id: 'x' } } } }),
    status: 400,
    code: 'invalid_field',
    field: 'oauth.provider.google.client_secret',
  },
  {
    name: 'OAuth scopes without client credentials',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ oauth: { provider: { github: { scopes: ['read:org'] } } } }),
    status: 400,
    code: 'invalid_field',
    field: 'oauth.provider.github.scopes',
  },
  {
    name: 'OAuth with an unknown provider',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ oauth: { provider: { myspace: {} } } }),
    status: 400,
    code: 'unknown_field',
    field: 'oauth.provider.myspace',
  },
  {
    name: 'OAuth teams on a non-GitHub provider',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ oauth: { provider: { google: { teams: ['a/b'] } } } }),
    status: 400,
    code: 'unknown_field',
    field: 'oauth.provider.google.teams',
  },
  {
    name: 'webhook without a secret',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ webhook_verification: { provider: 'github' } }),
    status: 400,
    code: 'invalid_field',
    field: 'webhook_verification.secret',
  },
  {
    name: 'webhook with an unknown provider',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ webhook_verification: { provider: 'myspace', secret: 'x' } }),
    status: 400,
    code: 'invalid_field',
    field: 'webhook_verification.provider',
  },
  {
    name: 'request headers with a non-string value',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ request_headers: { add: { 'x-a': 1 } } }),
    status: 400,
    code: 'invalid_field',
    field: 'request_headers.add.x-a',
  },
  {
    name: 'route IP restriction with a missing policy',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ ip_restriction: { ip_policy_ids: ['ipp_Missing00000000000000000000'] } }),
    status: 400,
    code: 'reference_not_found',
    field: 'ip_restriction.ip_policy_ids',
  },
  {
    name: 'SAML with an unsupported nameid format',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ saml: { nameid_format: 'urn:x' } }),
    status: 400,
    code: 'invalid_field',
    field: 'saml.nameid_format',
  },
  {
    name: 'limit of 0',
    method: 'GET',
    path: '/ip_policy_rules?limit=0',
    body: undefined,
    status: 400,
    code: 'invalid_field',
    field: 'limit',
  },
  {
    name: 'limit of 101',
    method: 'GET',
    path: '/ip_policy_rules?limit=101',
    body: undefined,
    status: 400,
    code: 'invalid_field',
    field: 'limit',
  },
  {
    name: 'limit that is not a number',
    method: 'GET',
    path: '/ip_policy_rules?limit=ten',
    body: undefined,
    status: 400,
    code: 'invalid_field',
    field: 'limit',
  },
  {
    name: 'before_id never seen',
    method: 'GET',
    path: '/ip_policy_rules?before_id=ipr_nope',
    body: undefined,
    status: 400,
    code: 'invalid_field',
    field: 'before_id',
  },
];

describe('emulator validation', () => {
  let h: EmulatorHandle;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    h = await openEmulator({
      seed: {
        ip_policies: [{ id: POLICY }, { id: OTHER_POLICY }],
        endpoint_configurations: [{ id: EC }],
        https_edges: [{ id: EDGE, routes: [{ id: ROUTE, match_type: 'path_prefix', match: '/app' }] }],
        tcp_edges: [{ id: TCP }],
        tls_edges: [{ id: TLS }],
      },
    });
    ids.rule = (await h.call('POST', '/ip_policy_rules', { ...RULE, cidr: '192.0.2.0/24' })).body.id;
    ids.addr = (await h.call('POST', '/reserved_addrs', { description: 'x' })).body.id;
    ids.ca = (await h.call('POST', '/certificate_authorities', { ca_pem: corpRoot })).body.id;
    await h.call('PATCH', `/ip_policy_rules/${ids.rule}`, { description: 'kept' });
    // a second rule whose cidr the PATCH case tries to take
    ids.rule = (await h.call('POST', '/ip_policy_rules', { ...RULE, cidr: '198.51.100.0/24' })).body.id;
  });
  afterAll(async () => {
    await h.emulator.close();
  });

  it.each(CASES)('$name → $status $code $field', async (c) => {
    const path = c.path.replace(/\{(\w+)\}/g, (_, key: string) => ids[key] ?? key);
    const before = await h.call('GET', '/ip_policy_rules');

    const response = await h.call(c.method, path, c.body);

    expect(response.status).toBe(c.status);
    expect(response.body.error_code).toBe(c.code);
    expect(response.body.status_code).toBe(c.status);
    expect(response.body.details.operation_id).toMatch(/^op_[0-9A-Za-z]{27}$/);
    expect(response.body.details.field).toBe(c.field);
    expect(typeof response.body.msg).toBe('string');
    expect((await h.call('GET', '/ip_policy_rules')).body).toEqual(before.body);
  });

  it.each([
    ['255 bytes of ASCII', 'a'.repeat(255)],
    ['85 three-byte characters (255 bytes)', '€'.repeat(85)],
  ])('accepts a description of %s', async (_, description) => {
    const response = await h.call('POST', '/ip_policy_rules', {
      ...RULE,
      cidr: '203.0.113.7/32',
      description,
    });

    expect(response.status).toBe(201);
    expect(response.body.cidr).toBe('203.0.113.7/32');
    expect((await h.call('DELETE', `/ip_policy_rules/${response.body.id}`)).status).toBe(204);
  });

  it.each([
    ['10.2.0.0/16', '10.2.0.0/16'],
    ['198.51.100.9/32', '198.51.100.9/32'],
    ['2001:DB8:0:0::/64', '2001:db8::/64'],
    ['2001:db8::1/128', '2001:db8::1/128'],
  ])('stores cidr %s canonically as %s', async (cidr, canonical) => {
    const response = await h.call('POST', '/ip_policy_rules', { ...RULE, ip_policy_id: OTHER_POLICY, cidr });

    expect(response.status).toBe(201);
    expect(response.body.cidr).toBe(canonical);
  });

  it('refuses mutual TLS beside upstream termination on a TLS edge, in either order', async () => {
    const upstream = await h.call('PUT', `/edges/tls/${TLS}/tls_termination`, { terminate_at: 'upstream' });
    const mutual = await h.call('PUT', `/edges/tls/${TLS}/mutual_tls`, {
      certificate_authority_ids: [ids.ca],
    });
    await h.call('PUT', `/edges/tls/${TLS}/tls_termination`, { terminate_at: 'edge', min_version: '1.3' });
    const mutualNow = await h.call('PUT', `/edges/tls/${TLS}/mutual_tls`, {
      certificate_authority_ids: [ids.ca],
    });
    const upstreamNow = await h.call('PUT', `/edges/tls/${TLS}/tls_termination`, {
      terminate_at: 'upstream',
    });

    expect(upstream.body).toEqual({ enabled: true, terminate_at: 'upstream', min_version: null });
    expect([mutual.status, mutual.body.error_code, mutual.body.details.field]).toEqual([
      400,
      'conflict',
      'mutual_tls',
    ]);
    expect(mutualNow.status).toBe(200);
    expect([upstreamNow.status, upstreamNow.body.error_code]).toEqual([400, 'conflict']);
  });

  it('refuses to delete a CA that is still referenced', async () => {
    const ca = await h.call('DELETE', `/certificate_authorities/${ids.ca}`);

    expect([ca.status, ca.body.error_code]).toEqual([400, 'conflict']);
  });

  it('accepts a webhook without a secret only for sns', async () => {
    const sns = await h.call(
      'POST',
      `/edges/https/${EDGE}/routes`,
      route({ webhook_verification: { provider: 'sns' } }),
    );

    expect(sns.status).toBe(201);
    expect(sns.body.webhook_verification).toEqual({ enabled: true, provider: 'sns' });
  });
});
