import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

const POLICY = 'ipp_OfficeVpnPolicy000000000001';
const EC = 'ec_BastionEndpointConfig000001';
const TCP = 'edgtcp_SshEdge00000000000000000001';
const TLS = 'edgtls_DbEdge000000000000000000001';
const corpRoot = readFileSync('test/fixtures/certs/corp-root.pem', 'utf8');
const partnerCa = readFileSync('test/fixtures/certs/partner-ca.pem', 'utf8');
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describe('emulator endpoints', () => {
  let h: EmulatorHandle;
  let base: string;

  beforeAll(async () => {
    h = await openEmulator({
      seed: {
        ip_policies: [{ id: POLICY }],
        endpoint_configurations: [{ id: EC }],
        tcp_edges: [{ id: TCP }],
        tls_edges: [{ id: TLS }],
      },
    });
    base = h.emulator.url;
  });
  afterAll(async () => {
    await h.emulator.close();
  });

  it('serves the IP policy rule lifecycle', async () => {
    const created = await h.call('POST', '/ip_policy_rules', {
      cidr: '203.0.113.0/24',
      ip_policy_id: POLICY,
      action: 'deny',
      description: 'office',
      metadata: '{"a":1}',
    });
    const id = created.body.id as string;
    const patched = await h.call('PATCH', `/ip_policy_rules/${id}`, {
      cidr: '203.0.112.0/23',
      description: 'wider',
    });
    const read = await h.call('GET', `/ip_policy_rules/${id}`);
    const deleted = await h.call('DELETE', `/ip_policy_rules/${id}`);
    const gone = await h.call('GET', `/ip_policy_rules/${id}`);

    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id,
      uri: `${base}/ip_policy_rules/${id}`,
      created_at: expect.stringMatching(TIMESTAMP),
      description: 'office',
      metadata: '{"a":1}',
      cidr: '203.0.113.0/24',
      ip_policy: { id: POLICY, uri: `${base}/ip_policies/${POLICY}` },
      action: 'deny',
    });
    expect(patched.status).toBe(200);
    expect(read.body).toEqual({ ...created.body, cidr: '203.0.112.0/23', description: 'wider' });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect([gone.status, gone.body.error_code]).toEqual([404, 'not_found']);
  });

  it('serves reserved addresses with an assigned addr and an attachable endpoint configuration', async () => {
    const created = await h.call('POST', '/reserved_addrs', { description: 'bastion', region: 'eu' });
    const defaulted = await h.call('POST', '/reserved_addrs', { description: 'plain' });
    const id = created.body.id as string;
    const attached = await h.call('PATCH', `/reserved_addrs/${id}`, {
      endpoint_configuration_id: EC,
      metadata: 'm',
    });
    const nullPatch = await h.call('PATCH', `/reserved_addrs/${id}`, { endpoint_configuration_id: null });
    const stillAttached = await h.call('GET', `/reserved_addrs/${id}`);
    const detach = await h.call('DELETE', `/reserved_addrs/${id}/endpoint_configuration`);
    const detached = await h.call('GET', `/reserved_addrs/${id}`);

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^ra_[0-9A-Za-z]{27}$/),
      region: 'eu',
      endpoint_configuration: null,
    });
    expect(created.body.addr).toMatch(/^[\w.-]+:\d+$/);
    expect(defaulted.body.region).toBe('us');
    expect(attached.body.endpoint_configuration).toEqual({
      id: EC,
      uri: `${base}/endpoint_configurations/${EC}`,
    });
    expect(attached.body.metadata).toBe('m');
    // The family reads null as "not sent": a PATCH with nothing else is an empty update, and never detaches.
    expect([nullPatch.status, nullPatch.body.error_code]).toEqual([400, 'invalid_body']);
    expect(stillAttached.body.endpoint_configuration?.id).toBe(EC);
    expect(detach.status).toBe(204);
    expect(detached.body.endpoint_configuration).toBeNull();
    expect((await h.call('DELETE', `/reserved_addrs/${id}`)).status).toBe(204);
  });

  it('parses a CA certificate and returns the PEM with one trailing newline', async () => {
    const created = await h.call('POST', '/certificate_authorities', {
      ca_pem: `${corpRoot.trimEnd()}\n\n\n`,
      description: 'corp',
    });
    const patched = await h.call('PATCH', `/certificate_authorities/${created.body.id}`, {
      description: 'corporate',
    });

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      subject_common_name: 'corp-root.example.com',
      not_before: '2026-11-21T23:20:12Z',
      not_after: '2036-11-18T23:20:12Z',
      key_usages: ['digital_signature', 'cert_sign', 'crl_sign'],
      extended_key_usages: ['client_auth', 'server_auth'],
    });
    expect(created.body.extended_key_usages).toHaveLength(2);
    expect(created.body.ca_pem).toBe(`${corpRoot.trimEnd()}\n`);
    expect(patched.body.description).toBe('corporate');
    expect(patched.body.ca_pem).toBe(created.body.ca_pem);
  });

  it('serves HTTPS edges: modules, PATCH that replaces named modules only, module DELETEs, routes inside', async () => {
    const ca1 = (await h.call('POST', '/certificate_authorities', { ca_pem: corpRoot })).body.id as string;
    const ca2 = (await h.call('POST', '/certificate_authorities', { ca_pem: partnerCa })).body.id as string;
    const created = await h.call('POST', '/edges/https', {
      hostports: ['web.example.com:443'],
      mutual_tls: { certificate_authority_ids: [ca1] },
    });
    const id = created.body.id as string;
    const patched = await h.call('PATCH', `/edges/https/${id}`, { tls_termination: { min_version: '1.2' } });
    const replaced = await h.call('PATCH', `/edges/https/${id}`, {
      mutual_tls: { enabled: false, certificate_authority_ids: [ca2, ca1] },
    });
    const routeCreated = await h.call('POST', `/edges/https/${id}/routes`, {
      match_type: 'path_prefix',
      match: '/app',
      backend: { backend_id: 'bkdhr_x' },
      circuit_breaker: { num_buckets: 128, error_threshold_percentage: 0.5 },
    });
    const routeId = routeCreated.body.id as string;
    const withRoute = await h.call('GET', `/edges/https/${id}`);
    const listed = await h.call('GET', '/edges/https');
    const tlsDeleted = await h.call('DELETE', `/edges/https/${id}/tls_termination`);
    const tlsAgain = await h.call('DELETE', `/edges/https/${id}/tls_termination`);
    const mtlsRead = await h.call('GET', `/edges/https/${id}/mutual_tls`);
    const unknownEdge = await h.call('DELETE', '/edges/https/edghts_Missing000000000000000000000/mutual_tls');

    expect(created.body).toMatchObject({
      hostports: ['web.example.com:443'],
      mutual_tls: {
        enabled: true,
        certificate_authorities: [{ id: ca1, uri: `${base}/certificate_authorities/${ca1}` }],
      },
      tls_termination: null,
      routes: [],
    });
    expect(patched.body.tls_termination).toEqual({ enabled: true, terminate_at: 'edge', min_version: '1.2' });
    expect(patched.body.mutual_tls).toEqual(created.body.mutual_tls);
    expect(replaced.body.mutual_tls.enabled).toBe(false);
    expect(replaced.body.mutual_tls.certificate_authorities.map((r: { id: string }) => r.id)).toEqual([
      ca2,
      ca1,
    ]);
    expect(replaced.body.tls_termination).toEqual(patched.body.tls_termination);
    expect(routeCreated.status).toBe(201);
    expect(routeCreated.body).toMatchObject({
      edge_id: id,
      uri: `${base}/edges/https/${id}/routes/${routeId}`,
      backend: { enabled: true, backend: { id: 'bkdhr_x', uri: `${base}/backends/bkdhr_x` } },
      circuit_breaker: { enabled: true, num_buckets: 128, error_threshold_percentage: 0.5 },
      oidc: null,
      saml: null,
      websocket_tcp_converter: null,
    });
    expect(withRoute.body.routes).toEqual([routeCreated.body]);
    expect(listed.body.https_edges[0]).toEqual(withRoute.body);
    expect(tlsDeleted.status).toBe(204);
    expect([tlsAgain.status, tlsAgain.body.error_code]).toEqual([404, 'module_not_set']);
    expect(mtlsRead.body).toEqual(replaced.body.mutual_tls);
    expect([unknownEdge.status, unknownEdge.body.error_code]).toEqual([404, 'not_found']);
  });

  it('serves the route OIDC module: PUT replaces it whole, defaults filled, GET and DELETE', async () => {
    const edge = (await h.call('POST', '/edges/https', {})).body.id as string;
    const route = (
      await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'exact_path', match: '/' })
    ).body.id as string;
    const path = `/edges/https/${edge}/routes/${route}/oidc`;
    const unset = await h.call('GET', path);
    const first = await h.call('PUT', path, {
      issuer: 'https://id.example.com',
      client_id: 'app',
      client_secret: 's',
      scopes: ['openid'],
      cookie_prefix: 'x.',
      inactivity_timeout: 300,
    });
    const second = await h.call('PUT', path, {
      issuer: 'https://id.example.com',
      client_id: 'app',
      client_secret: 's2',
    });
    const read = await h.call('GET', path);
    const inEdge = await h.call('GET', `/edges/https/${edge}`);
    const deleted = await h.call('DELETE', path);
    const after = await h.call('GET', path);
    const wrongEdge = await h.call(
      'GET',
      `/edges/https/edghts_Missing000000000000000000000/routes/${route}/oidc`,
    );

    expect([unset.status, unset.body.error_code]).toEqual([404, 'module_not_set']);
    expect(first.body).toEqual({
      enabled: true,
      options_passthrough: false,
      cookie_prefix: 'x.',
      inactivity_timeout: 300,
      maximum_duration: 0,
      issuer: 'https://id.example.com',
      client_id: 'app',
      client_secret: 's',
      scopes: ['openid'],
    });
    expect(second.body).toEqual({
      ...first.body,
      cookie_prefix: '',
      inactivity_timeout: 0,
      client_secret: 's2',
      scopes: [],
    });
    expect(read.body).toEqual(second.body);
    expect(inEdge.body.routes[0].oidc).toEqual(second.body);
    expect(deleted.status).toBe(204);
    expect(after.body.error_code).toBe('module_not_set');
    expect([wrongEdge.status, wrongEdge.body.error_code]).toEqual([404, 'not_found']);
  });

  it('serves the TCP edge IP restriction module', async () => {
    const path = `/edges/tcp/${TCP}/ip_restriction`;
    const unset = await h.call('GET', path);
    const put = await h.call('PUT', path, { ip_policy_ids: [POLICY] });
    const read = await h.call('GET', path);
    const edge = await h.call('GET', `/edges/tcp/${TCP}`);
    const deleted = await h.call('DELETE', path);
    const again = await h.call('DELETE', path);

    expect(unset.body.error_code).toBe('module_not_set');
    expect(put.body).toEqual({
      enabled: true,
      ip_policies: [{ id: POLICY, uri: `${base}/ip_policies/${POLICY}` }],
    });
    expect(read.body).toEqual(put.body);
    expect(edge.body.ip_restriction).toEqual(put.body);
    expect(deleted.status).toBe(204);
    expect(again.body.error_code).toBe('module_not_set');
  });

  it('serves the TLS edge mutual TLS and TLS termination modules', async () => {
    const ca = (await h.call('POST', '/certificate_authorities', { ca_pem: corpRoot })).body.id as string;
    const mtls = await h.call('PUT', `/edges/tls/${TLS}/mutual_tls`, {
      enabled: false,
      certificate_authority_ids: [ca],
    });
    const term = await h.call('PUT', `/edges/tls/${TLS}/tls_termination`, { terminate_at: 'edge' });
    const edge = await h.call('GET', `/edges/tls/${TLS}`);
    const mtlsDeleted = await h.call('DELETE', `/edges/tls/${TLS}/mutual_tls`);
    const termDeleted = await h.call('DELETE', `/edges/tls/${TLS}/tls_termination`);
    const termRead = await h.call('GET', `/edges/tls/${TLS}/tls_termination`);

    expect(mtls.body).toEqual({
      enabled: false,
      certificate_authorities: [{ id: ca, uri: `${base}/certificate_authorities/${ca}` }],
    });
    expect(term.body).toEqual({ enabled: true, terminate_at: 'edge', min_version: null });
    expect(edge.body).toMatchObject({ mutual_tls: mtls.body, tls_termination: term.body });
    expect([mtlsDeleted.status, termDeleted.status]).toEqual([204, 204]);
    expect(termRead.body.error_code).toBe('module_not_set');
  });

  it('serves the emulator-only resources: IP policies, endpoint configurations, TCP and TLS edges', async () => {
    const policy = await h.call('POST', '/ip_policies', { description: 'p' });
    const config = await h.call('POST', '/endpoint_configurations', { description: 'c' });
    const tcp = await h.call('POST', '/edges/tcp', { hostports: ['1.tcp.example:2222'] });
    const tls = await h.call('POST', '/edges/tls', { tls_termination: { terminate_at: 'upstream' } });

    expect(policy.body).toMatchObject({
      id: expect.stringMatching(/^ipp_/),
      uri: `${base}/ip_policies/${policy.body.id}`,
    });
    expect(config.body.id).toMatch(/^ec_[0-9A-Za-z]{27}$/);
    expect(tcp.body).toMatchObject({ hostports: ['1.tcp.example:2222'], ip_restriction: null });
    expect(tls.body).toMatchObject({
      mutual_tls: null,
      tls_termination: { terminate_at: 'upstream', min_version: null },
    });
    for (const [path, key] of [
      ['/ip_policies', 'ip_policies'],
      ['/endpoint_configurations', 'endpoint_configurations'],
      ['/edges/tcp', 'tcp_edges'],
      ['/edges/tls', 'tls_edges'],
    ] as const) {
      const list = await h.call('GET', path);
      expect(list.body[key].length).toBeGreaterThan(0);
      expect(list.body.uri).toBe(`${base}${path}`);
    }
    expect((await h.call('DELETE', `/ip_policies/${policy.body.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `/endpoint_configurations/${config.body.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `/edges/tcp/${tcp.body.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `/edges/tls/${tls.body.id}`)).status).toBe(204);
  });

  it('deletes an HTTPS edge with its routes', async () => {
    const edge = (await h.call('POST', '/edges/https', {})).body.id as string;
    const route = (
      await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'exact_path', match: '/' })
    ).body.id;

    expect((await h.call('DELETE', `/edges/https/${edge}`)).status).toBe(204);
    expect((await h.call('GET', `/edges/https/${edge}/routes/${route}`)).status).toBe(404);
  });
});

describe('emulator transport errors', () => {
  let h: EmulatorHandle;

  beforeAll(async () => {
    h = await openEmulator({ apiKey: 'test-key' });
  });
  afterAll(async () => {
    await h.emulator.close();
  });

  it.each([
    ['no Authorization', { authorization: '' }, 401, 'unauthorized'],
    ['a wrong key', { authorization: 'Bearer nope' }, 401, 'unauthorized'],
    ['a non-Bearer scheme', { authorization: 'Basic test-key' }, 401, 'unauthorized'],
    ['no Service-Version', { 'service-version': '' }, 400, 'missing_service_version'],
    ['Service-Version 1', { 'service-version': '1' }, 400, 'unsupported_service_version'],
  ])('answers a request with %s', async (_, headers, status, code) => {
    const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== ''));
    const removed = Object.keys(headers).filter((k) => headers[k as keyof typeof headers] === '');
    const response = await fetch(`${h.emulator.url}/ip_policy_rules`, {
      headers: {
        ...Object.fromEntries(
          Object.entries({ authorization: 'Bearer test-key', 'service-version': '2' }).filter(
            ([k]) => !removed.includes(k),
          ),
        ),
        ...clean,
      },
    });
    const body = await response.json();

    expect(response.status).toBe(status);
    expect(body).toMatchObject({ error_code: code, status_code: status });
  });

  it('answers 404 for an unknown path and 405 with Allow for a wrong method', async () => {
    const unknown = await h.call('GET', '/nothing/here');
    const wrong = await h.call('PUT', '/ip_policy_rules');
    const wrongItem = await h.call('POST', '/ip_policy_rules/ipr_x');

    expect([unknown.status, unknown.body.error_code]).toEqual([404, 'not_found']);
    expect([wrong.status, wrong.body.error_code]).toEqual([405, 'method_not_allowed']);
    expect(wrong.headers.get('allow')).toBe('POST, GET');
    expect(wrongItem.headers.get('allow')).toBe('GET, PATCH, DELETE');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const response = await h.call('POST', '/ip_policy_rules', { description: 'x'.repeat(1024 * 1024 + 10) });

    expect([response.status, response.body.error_code]).toEqual([413, 'payload_too_large']);
  });

  it('counts requests by route template and status, and resets', async () => {
    await fetch(`${h.emulator.url}/_emulator/stats`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer test-key' },
    });
    await h.call('GET', '/ip_policy_rules');
    await h.call('GET', '/ip_policy_rules/ipr_x');
    await h.call('GET', '/edges/https/edghts_x/routes/edghtsrt_y/oidc');
    await h.call('GET', '/nowhere');

    const stats = await fetch(`${h.emulator.url}/_emulator/stats`, {
      headers: { authorization: 'Bearer test-key' },
    });
    const unauthorized = await fetch(`${h.emulator.url}/_emulator/stats`);

    expect(await stats.json()).toEqual({
      total: 4,
      byRoute: {
        'GET /ip_policy_rules': 1,
        'GET /ip_policy_rules/{id}': 1,
        'GET /edges/https/{edge_id}/routes/{id}/oidc': 1,
        'GET (unmatched)': 1,
      },
      byStatus: { '200': 1, '404': 3 },
    });
    expect(unauthorized.status).toBe(401);
  });
});
