import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

/** The family's rules (docs/emulator.md): what the family's clients send, what the real service refuses, what it returns. */
const POLICY = 'ipp_FidelityPolicy0000000000001';
const SPARE_POLICY = 'ipp_FidelitySparePolicy00000001';
const EDGE = 'edghts_FidelityEdge000000000000001';
/** One route of an edge may authenticate: the OAuth route lives on an edge of its own. */
const OAUTH_EDGE = 'edghts_FidelityOauthEdge0000000001';
const ROUTE = 'edghtsrt_FidelityRoute00000000000001';
const TCP = 'edgtcp_FidelityTcp0000000000000001';
const TLS = 'edgtls_FidelityTls0000000000000001';
const corpRoot = readFileSync('test/fixtures/certs/corp-root.pem', 'utf8');
const partnerCa = readFileSync('test/fixtures/certs/partner-ca.pem', 'utf8');
// Never a real key: only its block type matters, and it must never come back.
const KEY_MATERIAL = 'TUlJRXZRSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NCS2N3Z2dTakFnRUFBb0lCQVFD';
const KEY_BLOCK = `-----BEGIN PRIVATE KEY-----\n${KEY_MATERIAL}\n-----END PRIVATE KEY-----\n`;
const OIDC = { issuer: 'https://accounts.example.com', client_id: 'app', client_secret: 's3cret' };
const route = (extra: Record<string, unknown>) => ({ match_type: 'path_prefix', match: '/r', ...extra });

/** fetch refuses to send a GET with a body; node:http does not. */
function rawRequest(
  h: EmulatorHandle,
  method: string,
  path: string,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      `${h.emulator.url}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${h.emulator.apiKey}`,
          'service-version': '2',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

interface RefusedCase {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly status?: number;
  readonly code: string;
  readonly field?: string;
}

const REFUSED: readonly RefusedCase[] = [
  {
    name: 'a body sent as text/plain',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { cidr: '10.9.0.0/16', ip_policy_id: POLICY, action: 'allow' },
    headers: { 'content-type': 'text/plain' },
    code: 'invalid_content_type',
  },
  {
    name: 'a body on DELETE',
    method: 'DELETE',
    path: '/reserved_addrs/{addr}',
    body: { id: '{addr}' },
    code: 'invalid_body',
  },
  {
    name: 'an unknown query parameter',
    method: 'GET',
    path: '/ip_policy_rules?page=2',
    code: 'invalid_query',
    field: 'page',
  },
  {
    name: 'a repeated query parameter',
    method: 'GET',
    path: '/ip_policy_rules?limit=1&limit=2',
    code: 'invalid_query',
    field: 'limit',
  },
  {
    name: 'a query on a single read',
    method: 'GET',
    path: '/edges/https/{edge}?limit=1',
    code: 'invalid_query',
    field: 'limit',
  },
  {
    name: 'a query on a write',
    method: 'PATCH',
    path: '/edges/https/{edge}?x=1',
    body: { description: 'q' },
    code: 'invalid_query',
    field: 'x',
  },
  {
    name: 'before_id and beforeId together',
    method: 'GET',
    path: '/ip_policy_rules?before_id={rule}&beforeId={rule}',
    code: 'invalid_query',
    field: 'before_id',
  },
  {
    name: 'a cidr without a mask',
    method: 'POST',
    path: '/ip_policy_rules',
    body: { cidr: '1.2.3.4', ip_policy_id: POLICY, action: 'deny' },
    code: 'invalid_field',
    field: 'cidr',
  },
  {
    name: 'an empty PATCH',
    method: 'PATCH',
    path: '/ip_policy_rules/{rule}',
    body: {},
    code: 'invalid_body',
  },
  {
    name: 'a PATCH holding only its id',
    method: 'PATCH',
    path: '/reserved_addrs/{addr}',
    body: { id: '{addr}' },
    code: 'invalid_body',
  },
  {
    name: 'a PATCH whose id is another object',
    method: 'PATCH',
    path: '/certificate_authorities/{ca}',
    body: { id: 'ca_SomeoneElse0000000000000001', description: 'x' },
    code: 'invalid_field',
    field: 'id',
  },
  {
    name: 'a module envelope whose id is another edge',
    method: 'PUT',
    path: `/edges/tcp/${TCP}/ip_restriction`,
    body: { id: 'edgtcp_Other0000000000000000000001', module: { ip_policy_ids: [POLICY] } },
    code: 'invalid_field',
    field: 'id',
  },
  {
    name: 'a route module envelope whose edge_id is another edge',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { edge_id: 'edghts_Other0000000000000000000001', id: ROUTE, module: OIDC },
    code: 'invalid_field',
    field: 'edge_id',
  },
  {
    name: 'a module envelope with a stray key',
    method: 'PUT',
    path: `/edges/tcp/${TCP}/ip_restriction`,
    body: { id: TCP, module: { ip_policy_ids: [POLICY] }, extra: 1 },
    code: 'unknown_field',
    field: 'extra',
  },
  {
    name: 'ca_pem holding a private key',
    method: 'POST',
    path: '/certificate_authorities',
    body: { ca_pem: `${corpRoot}${KEY_BLOCK}` },
    code: 'invalid_field',
    field: 'ca_pem',
  },
  {
    name: 'ca_pem with text before the block',
    method: 'POST',
    path: '/certificate_authorities',
    body: { ca_pem: `subject=CN corp\n${corpRoot}` },
    code: 'invalid_field',
    field: 'ca_pem',
  },
  {
    name: 'ca_pem with text after the block',
    method: 'POST',
    path: '/certificate_authorities',
    body: { ca_pem: `${corpRoot}trailing words\n` },
    code: 'invalid_field',
    field: 'ca_pem',
  },
  {
    name: 'ca_pem with a second certificate',
    method: 'POST',
    path: '/certificate_authorities',
    body: { ca_pem: `${corpRoot}${partnerCa}` },
    code: 'invalid_field',
    field: 'ca_pem',
  },
  {
    name: 'ca_pem over 64 KB',
    method: 'POST',
    path: '/certificate_authorities',
    body: { ca_pem: `${corpRoot}${' '.repeat(64 * 1024)}` },
    code: 'invalid_field',
    field: 'ca_pem',
  },
  {
    name: 'a TCP IP restriction without a policy',
    method: 'PUT',
    path: `/edges/tcp/${TCP}/ip_restriction`,
    body: { ip_policy_ids: [] },
    code: 'invalid_field',
    field: 'ip_policy_ids',
  },
  {
    name: 'a route IP restriction without a policy',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ ip_restriction: { ip_policy_ids: [] } }),
    code: 'invalid_field',
    field: 'ip_restriction.ip_policy_ids',
  },
  {
    name: 'a route with oidc and saml',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ oidc: OIDC, saml: { idp_metadata: '<x/>' } }),
    code: 'conflict',
    field: 'saml',
  },
  {
    name: 'an oidc PUT on a route that has oauth',
    method: 'PUT',
    path: `/edges/https/${OAUTH_EDGE}/routes/{oauthRoute}/oidc`,
    body: OIDC,
    code: 'conflict',
    field: 'oidc',
  },
  {
    name: 'an OIDC issuer over 255 bytes',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, issuer: `https://id.example.com/${'a'.repeat(240)}` },
    code: 'invalid_field',
    field: 'issuer',
  },
  {
    name: 'an OIDC inactivity_timeout over one year',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, inactivity_timeout: 31_536_001 },
    code: 'invalid_field',
    field: 'inactivity_timeout',
  },
  {
    name: 'an OIDC maximum_duration over one year',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, maximum_duration: 31_536_001 },
    code: 'invalid_field',
    field: 'maximum_duration',
  },
  {
    name: 'an OIDC cookie_prefix with a hyphen',
    method: 'PUT',
    path: `/edges/https/${EDGE}/routes/${ROUTE}/oidc`,
    body: { ...OIDC, cookie_prefix: 'my-app.' },
    code: 'invalid_field',
    field: 'cookie_prefix',
  },
  {
    name: 'OAuth with two providers',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ oauth: { provider: { github: {}, google: {} } } }),
    code: 'invalid_field',
    field: 'oauth.provider',
  },
  {
    name: 'OAuth with client_secret but no client_id',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ oauth: { provider: { google: { client_secret: 's' } } } }),
    code: 'invalid_field',
    field: 'oauth.provider.google.client_id',
  },
  {
    name: 'OAuth with client_id but no client_secret',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ oauth: { provider: { google: { client_id: 'c' } } } }),
    code: 'invalid_field',
    field: 'oauth.provider.google.client_secret',
  },
  {
    name: 'a webhook provider nobody supports',
    method: 'POST',
    path: `/edges/https/${EDGE}/routes`,
    body: route({ webhook_verification: { provider: 'myspace', secret: 's' } }),
    code: 'invalid_field',
    field: 'webhook_verification.provider',
  },
  ...[
    'tripped_duration',
    'rolling_window',
    'num_buckets',
    'volume_threshold',
    'error_threshold_percentage',
  ].map(
    (field): RefusedCase => ({
      name: `a circuit breaker ${field} of 0`,
      method: 'POST',
      path: `/edges/https/${EDGE}/routes`,
      body: route({ circuit_breaker: { [field]: 0 } }),
      code: 'invalid_field',
      field: `circuit_breaker.${field}`,
    }),
  ),
  ...[
    'web_example.com:443',
    '-web.example.com:443',
    'web..example.com:443',
    'web.example.com:0',
    'web.example.com:65536',
    `${'a'.repeat(64)}.example.com:443`,
  ].map(
    (hostport): RefusedCase => ({
      name: `hostport ${hostport.length > 30 ? `${hostport.slice(0, 30)}…` : hostport}`,
      method: 'POST',
      path: '/edges/https',
      body: { hostports: [hostport] },
      code: 'invalid_field',
      field: 'hostports',
    }),
  ),
];

describe('the emulator behaves like the service family', () => {
  let h: EmulatorHandle;
  const ids: Record<string, string> = { edge: EDGE };

  beforeAll(async () => {
    h = await openEmulator({
      seed: {
        ip_policies: [{ id: POLICY }, { id: SPARE_POLICY }],
        https_edges: [
          { id: EDGE, routes: [{ id: ROUTE, match_type: 'path_prefix', match: '/app' }] },
          { id: OAUTH_EDGE },
        ],
        tcp_edges: [{ id: TCP }],
        tls_edges: [{ id: TLS }],
      },
    });
    ids.rule = (
      await h.call('POST', '/ip_policy_rules', {
        cidr: '192.0.2.0/24',
        ip_policy_id: POLICY,
        action: 'allow',
      })
    ).body.id;
    ids.addr = (await h.call('POST', '/reserved_addrs', { description: 'x' })).body.id;
    ids.ca = (await h.call('POST', '/certificate_authorities', { ca_pem: corpRoot })).body.id;
    ids.oauthRoute = (
      await h.call(
        'POST',
        `/edges/https/${OAUTH_EDGE}/routes`,
        route({ match: '/sso', oauth: { provider: { github: {} } } }),
      )
    ).body.id;
  });
  afterAll(async () => {
    await h.emulator.close();
  });

  const fill = (text: string): string => text.replace(/\{(\w+)\}/g, (_, key: string) => ids[key] ?? key);

  describe('refuses what the real service refuses', () => {
    it.each(REFUSED)('$name → $code $field', async (c) => {
      const path = fill(c.path);
      const body =
        typeof c.body === 'object' && c.body !== null ? JSON.parse(fill(JSON.stringify(c.body))) : c.body;
      const method = c.method;
      const before = await h.call('GET', '/ip_policy_rules');

      const response = await h.call(method, path, body, c.headers);

      expect([response.status, response.body.error_code, response.body.details.field]).toEqual([
        c.status ?? 400,
        c.code,
        c.field,
      ]);
      expect(response.headers.get('service-operation-id')).toBe(response.body.details.operation_id);
      expect(JSON.stringify(response.body)).not.toContain(KEY_MATERIAL);
      expect((await h.call('GET', '/ip_policy_rules')).body).toEqual(before.body);
    });

    it('names both IDs when a PATCH body names another object', async () => {
      const response = await h.call('PATCH', `/ip_policy_rules/${ids.rule}`, {
        id: 'ipr_SomeoneElse0000000000000001',
        description: 'x',
      });

      expect(response.body.msg).toContain('ipr_SomeoneElse0000000000000001');
      expect(response.body.msg).toContain(ids.rule);
    });

    it('stores no CA when its PEM also holds a key, and lists none holding key material', async () => {
      await h.call('POST', '/certificate_authorities', { ca_pem: `${corpRoot}${KEY_BLOCK}` });

      const listed = await h.call('GET', '/certificate_authorities');

      expect(listed.body.certificate_authorities).toHaveLength(1);
      expect(JSON.stringify(listed.body)).not.toContain('PRIVATE KEY');
    });

    it('refuses a body on GET', async () => {
      const { status, text } = await rawRequest(h, 'GET', '/ip_policy_rules', '{"limit":1}');

      expect([status, JSON.parse(text).error_code]).toEqual([400, 'invalid_body']);
    });
  });

  describe('accepts what family clients send', () => {
    it.each([
      ['IP policy rule', '/ip_policy_rules/{rule}', { description: 'from a family client' }],
      ['reserved address', '/reserved_addrs/{addr}', { description: 'from a family client' }],
      ['CA', '/certificate_authorities/{ca}', { description: 'from a family client' }],
      ['HTTPS edge', `/edges/https/${EDGE}`, { description: 'from a family client' }],
    ])('a PATCH of a %s carrying its own id', async (_, path, fields) => {
      const target = fill(path);
      const id = target.split('/').pop() as string;

      const response = await h.call('PATCH', target, { id, ...fields });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id, ...fields });
    });

    it('a route PATCH carrying edge_id and id', async () => {
      const response = await h.call('PATCH', `/edges/https/${EDGE}/routes/${ROUTE}`, {
        edge_id: EDGE,
        id: ROUTE,
        description: 'enveloped',
      });

      expect([response.status, response.body.description]).toEqual([200, 'enveloped']);
    });

    it.each([
      ['bare', { ip_policy_ids: [POLICY] }],
      ['{ id, module }', { id: TCP, module: { ip_policy_ids: [POLICY] } }],
      ['{ module }', { module: { ip_policy_ids: [POLICY] } }],
    ])('a TCP ip_restriction PUT, %s', async (_, body) => {
      const response = await h.call('PUT', `/edges/tcp/${TCP}/ip_restriction`, body);

      expect(response.status).toBe(200);
      expect(response.body.ip_policies.map((ref: { id: string }) => ref.id)).toEqual([POLICY]);
    });

    it('a route OIDC PUT as { edge_id, id, module }', async () => {
      const response = await h.call('PUT', `/edges/https/${EDGE}/routes/${ROUTE}/oidc`, {
        edge_id: EDGE,
        id: ROUTE,
        module: OIDC,
      });

      expect([response.status, response.body.issuer]).toEqual([200, OIDC.issuer]);
    });

    it.each([
      ['HTTPS edge PATCH', 'PATCH', `/edges/https/${EDGE}`, { mutual_tls: { enabled: false } }, 'mutual_tls'],
      ['HTTPS edge module PUT', 'PUT', `/edges/https/${EDGE}/mutual_tls`, { enabled: false }, undefined],
      ['TLS edge module PUT', 'PUT', `/edges/tls/${TLS}/mutual_tls`, { enabled: false }, undefined],
    ])(
      'mutual_tls enabled: false without certificate_authority_ids (%s)',
      async (_, method, path, body, key) => {
        const response = await h.call(method, path, body);

        expect(response.status).toBe(200);
        const module = key === undefined ? response.body : response.body[key];
        expect(module).toEqual({ enabled: false, certificate_authorities: [] });
      },
    );

    it('still needs certificate_authority_ids on an enabled mutual_tls', async () => {
      const response = await h.call('PUT', `/edges/tls/${TLS}/mutual_tls`, { enabled: true });

      expect([response.status, response.body.details.field]).toEqual([400, 'certificate_authority_ids']);
    });

    it('deletes a referenced IP policy; the referrer keeps it and its rules go', async () => {
      await h.call('POST', '/ip_policy_rules', {
        cidr: '198.51.100.0/24',
        ip_policy_id: SPARE_POLICY,
        action: 'deny',
      });
      await h.call('PUT', `/edges/tcp/${TCP}/ip_restriction`, { ip_policy_ids: [SPARE_POLICY] });

      const deleted = await h.call('DELETE', `/ip_policies/${SPARE_POLICY}`);
      const module = await h.call('GET', `/edges/tcp/${TCP}/ip_restriction`);
      const rules = await h.call('GET', '/ip_policy_rules');

      expect(deleted.status).toBe(204);
      expect(module.body.ip_policies.map((ref: { id: string }) => ref.id)).toEqual([SPARE_POLICY]);
      expect(
        rules.body.ip_policy_rules.map((rule: { ip_policy: { id: string } }) => rule.ip_policy.id),
      ).not.toContain(SPARE_POLICY);
    });

    it('keeps refusing to delete a referenced endpoint configuration and CA', async () => {
      const ec = (await h.call('POST', '/endpoint_configurations', {})).body.id;
      await h.call('PATCH', `/reserved_addrs/${ids.addr}`, { endpoint_configuration_id: ec });
      await h.call('PUT', `/edges/tls/${TLS}/mutual_tls`, { certificate_authority_ids: [ids.ca] });

      const ecDelete = await h.call('DELETE', `/endpoint_configurations/${ec}`);
      const caDelete = await h.call('DELETE', `/certificate_authorities/${ids.ca}`);

      expect([ecDelete.status, ecDelete.body.error_code]).toEqual([400, 'conflict']);
      expect([caDelete.status, caDelete.body.error_code]).toEqual([400, 'conflict']);
    });

    it('answers a CORS preflight without the key, and not for unknown paths', async () => {
      const preflight = await fetch(`${h.emulator.url}/ip_policy_rules/ipr_x`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'PATCH' },
      });
      const unknown = await fetch(`${h.emulator.url}/nowhere`, { method: 'OPTIONS' });

      expect(preflight.status).toBe(204);
      // The family echoes the origin with credentials allowed, where `*` would forbid credentials.
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
      expect(preflight.headers.get('vary')).toContain('Origin');
      expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('Service-Version');
      expect(unknown.status).toBe(404);
    });

    it("takes the TypeScript pager's beforeId as the cursor", async () => {
      await h.call('POST', '/ip_policy_rules', {
        cidr: '203.0.113.0/24',
        ip_policy_id: POLICY,
        action: 'deny',
      });
      const first = await h.call('GET', '/ip_policy_rules?limit=1');
      const last = first.body.ip_policy_rules[0].id;

      const camel = await h.call('GET', `/ip_policy_rules?limit=1&beforeId=${last}`);
      const snake = await h.call('GET', `/ip_policy_rules?limit=1&before_id=${last}`);

      expect(camel.body.ip_policy_rules).toEqual(snake.body.ip_policy_rules);
      expect(camel.body.ip_policy_rules[0].id).not.toBe(last);
    });
  });

  describe('returns what the real service returns', () => {
    it('names key usages as the family does', async () => {
      const ca = await h.call('GET', `/certificate_authorities/${ids.ca}`);

      expect(ca.body.key_usages).toEqual(['digital_signature', 'cert_sign', 'crl_sign']);
    });

    it('makes IDs that sort in creation order, and before_id is a cursor over them', async () => {
      const made: string[] = [];
      for (let i = 0; i < 12; i += 1) {
        made.push((await h.call('POST', '/reserved_addrs', { description: `order ${i}` })).body.id);
      }

      const page = await h.call('GET', `/reserved_addrs?before_id=${made[6]}&limit=3`);

      expect([...made].sort()).toEqual(made);
      expect(page.body.reserved_addrs.map((addr: { id: string }) => addr.id)).toEqual([
        made[5],
        made[4],
        made[3],
      ]);
    });

    it.each([
      ['a success', 'GET', '/ip_policy_rules'],
      ['a 204', 'DELETE', '/reserved_addrs/{addr}'],
      ['a 404', 'GET', '/reserved_addrs/ra_Missing00000000000000000000001'],
    ])('carries an operation-id header on %s', async (_, method, path) => {
      const response = await h.call(method, fill(path));

      expect(response.headers.get('service-operation-id')).toMatch(/^op_[0-9A-Za-z]{27}$/);
      if (response.body?.details) {
        expect(response.body.details.operation_id).toBe(response.headers.get('service-operation-id'));
      }
    });
  });
});

describe('the emulator with one generic 404 code', () => {
  it.each([
    ['an unknown edge', `/edges/tcp/edgtcp_Missing0000000000000000000001/ip_restriction`],
    ['an unset module', `/edges/tcp/${TCP}/ip_restriction`],
    ['an unknown path', '/nowhere'],
  ])('answers %s with the same code', async (_, path) => {
    const h = await openEmulator({ notFoundCode: 'E404', seed: { tcp_edges: [{ id: TCP }] } });
    try {
      const response = await h.call('GET', path);

      expect([response.status, response.body.error_code]).toEqual([404, 'E404']);
    } finally {
      await h.emulator.close();
    }
  });
});
