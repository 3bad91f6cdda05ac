import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import type { EdgeApi } from '../../src/api/edge-api.js';
import { mutualTlsFromApi } from '../../src/kinds/edge-modules/mutual-tls-module.js';
import { normalizeOidc, oidcFromApi } from '../../src/kinds/https-edges/oidc-module.js';
import type { Kind } from '../../src/kinds/kind.js';
import type { KindName } from '../../src/kinds/kind-name.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { KINDS, kindByName } from '../../src/kinds/registry.js';
import { SAMPLE_REGISTRY } from '../support/sample-registry.js';
import { connectEmulator, type EmulatorConnection } from './emulator-connection.js';

const CA_PEM = readFileSync(new URL('../fixtures/certs/corp-root.pem', import.meta.url), 'utf8').trimEnd();
const PARTNER_PEM = readFileSync(new URL('../fixtures/certs/partner-ca.pem', import.meta.url), 'utf8');
const OWNER = 'contract';

async function post(api: EdgeApi, path: string, body: unknown): Promise<Record<string, unknown>> {
  return (await api.request<Record<string, unknown>>({ method: 'POST', path, body })).body;
}

async function get(api: EdgeApi, path: string): Promise<unknown> {
  return (await api.request({ method: 'GET', path })).body;
}

/** The keys the planner compares: fields and resource-scoped modules. */
function compared(kind: Kind, spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const keys = [
    ...kind.fields.map((f) => f.name),
    ...kind.modules.filter((m) => m.scope === 'resource').map((m) => m.name),
  ];
  return Object.fromEntries(keys.filter((key) => spec[key] !== undefined).map((key) => [key, spec[key]]));
}

async function createManaged(api: EdgeApi, kind: Kind, spec: Record<string, unknown>, name: string) {
  const desired = kind.normalizeDesired(spec);
  const user = desired.metadata as Record<string, unknown> | undefined;
  const response = await api.request(
    kind.createRequest(desired, encodeMetadata(user, { owner: OWNER, name })),
  );
  return { desired, response, live: kind.fromApi(response.body) };
}

describe('kinds against the emulator', () => {
  let conn: EmulatorConnection;
  let ipPolicyId: string;
  let endpointConfigurationId: string;
  let caId: string;

  beforeAll(async () => {
    conn = await connectEmulator({}, {}, SAMPLE_REGISTRY);
    ipPolicyId = (await post(conn.api, '/ip_policies', { description: 'office' })).id as string;
    endpointConfigurationId = (await post(conn.api, '/endpoint_configurations', {})).id as string;
    caId = (await post(conn.api, '/certificate_authorities', { ca_pem: PARTNER_PEM })).id as string;
  });

  afterAll(async () => {
    await conn?.close();
  });

  const cases: ReadonlyArray<{
    kind: KindName;
    spec: () => Record<string, unknown>;
    update: () => Record<string, unknown>;
  }> = [
    {
      kind: 'ip_policy_rules',
      spec: () => ({
        cidr: '198.51.100.7',
        ip_policy_id: ipPolicyId,
        action: 'deny',
        description: 'one host',
        metadata: { team: 'net' },
      }),
      update: () => ({ cidr: '2001:DB8:0:0::/48', description: 'a v6 range' }),
    },
    {
      kind: 'reserved_addrs',
      spec: () => ({ description: 'ssh bastion', region: 'eu', metadata: { z: 1, a: [1, 2] } }),
      update: () => ({ endpoint_configuration_id: endpointConfigurationId, description: 'bastion' }),
    },
    {
      kind: 'certificate_authorities',
      spec: () => ({ ca_pem: CA_PEM, description: 'corp root' }),
      update: () => ({ description: 'corporate root' }),
    },
    {
      kind: 'https_edges',
      spec: () => ({
        hostports: ['b.example.com:443', 'a.example.com:443'],
        description: 'web',
        mutual_tls: { certificate_authorities: [caId] },
        tls_termination: { min_version: '1.2' },
      }),
      update: () => ({ hostports: ['c.example.com:443'], description: 'web 2' }),
    },
    {
      // The test-only sample kind (test/support/sample-kind/), held to the same contract.
      kind: 'reserved_domains' as KindName,
      spec: () => ({ domain: 'app.example.com', description: 'app', metadata: { team: 'edge' } }),
      update: () => ({ description: 'app 2' }),
    },
  ];

  it('has a case for every kind of the registry that edgesync creates, and the sample kind', () => {
    const owned = SAMPLE_REGISTRY.filter((kind) => kind.ownership === 'metadata').map((kind) => kind.name);

    expect(cases.map((entry) => entry.kind).sort()).toEqual([...owned].sort());
    expect(SAMPLE_REGISTRY.slice(0, KINDS.length)).toEqual(KINDS);
  });

  describe.each(cases)('$kind', ({ kind: kindName, spec, update }) => {
    const kind = SAMPLE_REGISTRY.find((candidate) => candidate.name === kindName) ?? kindByName(kindName);

    it('creates, reads, updates and deletes; every response normalizes to what was sent', async () => {
      const { desired, response, live } = await createManaged(conn.api, kind, spec(), 'entry');
      expect(response.status).toBe(201);
      expect(live.marker).toEqual({ owner: OWNER, name: 'entry' });
      expect(live.id.startsWith(kind.idPrefix)).toBe(true);
      expect(compared(kind, live.spec)).toEqual(compared(kind, desired));

      const readBack = kind.fromApi(await get(conn.api, kind.deleteRequest(live.id).path));
      expect(readBack.spec).toEqual(live.spec);
      expect(readBack.fingerprint).toBe(live.fingerprint);

      const changed = kind.normalizeDesired({ ...spec(), ...update() });
      const updatedKeys = Object.keys(update());
      const patch = kind.updateRequest(
        live.id,
        Object.fromEntries(updatedKeys.map((key) => [key, changed[key]])),
      );
      const updated = kind.fromApi((await conn.api.request(patch)).body);
      expect(compared(kind, updated.spec)).toEqual(compared(kind, changed));
      expect(updated.marker).toEqual(live.marker);
      expect(updated.fingerprint).not.toBe(live.fingerprint);

      const listed = await kind.readLive({ api: conn.api, ids: [] });
      expect(listed.find((object) => object.id === live.id)?.spec).toEqual(updated.spec);

      const deleted = await conn.api.request(kind.deleteRequest(live.id));
      expect(deleted.status).toBe(204);
      await expect(get(conn.api, kind.deleteRequest(live.id).path)).rejects.toMatchObject({
        status: 404,
        errorCode: 'not_found',
      });
    });
  });

  it('keeps outputs apart: reserved address addr, CA subject and validity', async () => {
    const addr = await createManaged(conn.api, kindByName('reserved_addrs'), { description: 'x' }, 'addr');
    const ca = await createManaged(conn.api, kindByName('certificate_authorities'), { ca_pem: CA_PEM }, 'ca');

    expect(addr.live.outputs.addr).toEqual(expect.any(String));
    expect(addr.live.spec).not.toHaveProperty('addr');
    expect(ca.live.outputs).toMatchObject({
      subject_common_name: expect.any(String),
      not_after: expect.any(String),
    });
    expect(ca.live.spec.ca_pem).toBe(`${CA_PEM}\n`);
  });

  describe('HTTPS edge modules', () => {
    const kind = kindByName('https_edges');

    it('puts, reads and deletes mutual_tls and tls_termination through the edge', async () => {
      const { live } = await createManaged(conn.api, kind, { hostports: ['m.example.com:443'] }, 'modules');
      expect(live.spec).toMatchObject({ mutual_tls: null, tls_termination: null, routes: [] });
      const mutualTls = { enabled: false, certificate_authorities: [caId] };

      await conn.api.request(kind.moduleRequest({ id: live.id }, 'mutual_tls', mutualTls));
      await conn.api.request(
        kind.moduleRequest({ id: live.id }, 'tls_termination', { enabled: true, min_version: '1.3' }),
      );
      const module = await get(conn.api, kind.moduleReadRequest({ id: live.id }, 'mutual_tls').path);
      const edge = kind.fromApi(await get(conn.api, `/edges/https/${live.id}`));

      expect(mutualTlsFromApi(module)).toEqual(kind.normalizeDesired({ mutual_tls: mutualTls }).mutual_tls);
      expect(edge.spec.mutual_tls).toEqual({ enabled: false, certificate_authorities: [caId] });
      expect(edge.spec.tls_termination).toEqual({ enabled: true, min_version: '1.3' });

      await conn.api.request(kind.moduleRequest({ id: live.id }, 'mutual_tls', null));
      const after = kind.fromApi(await get(conn.api, `/edges/https/${live.id}`));

      expect(after.spec.mutual_tls).toBeNull();
      expect(after.spec.tls_termination).toEqual({ enabled: true, min_version: '1.3' });
      await expect(
        get(conn.api, kind.moduleReadRequest({ id: live.id }, 'mutual_tls').path),
      ).rejects.toMatchObject({
        status: 404,
        errorCode: 'module_not_set',
      });
    });

    it('puts, reads and deletes a route oidc module; the edge list shows it with no extra request', async () => {
      const { live } = await createManaged(conn.api, kind, { hostports: ['o.example.com:443'] }, 'oidc');
      const route = await post(conn.api, `/edges/https/${live.id}/routes`, {
        match_type: 'path_prefix',
        match: '/app',
        compression: { enabled: true },
      });
      const target = { id: live.id, routeId: route.id as string };
      const oidc = {
        issuer: 'https://accounts.example.com',
        client_id: 'app',
        client_secret: 's3cret',
        scopes: ['openid', 'email', 'openid'],
      };

      const put = await conn.api.request(kind.moduleRequest(target, 'oidc', oidc));
      const read = await get(conn.api, kind.moduleReadRequest(target, 'oidc').path);
      const listed = (await kind.readLive({ api: conn.api, ids: [] })).find(
        (object) => object.id === live.id,
      );

      expect(oidcFromApi(put.body)).toEqual(normalizeOidc(oidc));
      expect(oidcFromApi(read)).toEqual(normalizeOidc(oidc));
      expect(listed?.spec.routes).toEqual([
        {
          id: route.id,
          match_type: 'path_prefix',
          match: '/app',
          oidc: normalizeOidc(oidc),
          compression: { enabled: true },
        },
      ]);

      await conn.api.request(kind.moduleRequest(target, 'oidc', null));
      const afterDelete = kind.fromApi(await get(conn.api, `/edges/https/${live.id}`));

      expect((afterDelete.spec.routes as Array<Record<string, unknown>>)[0]?.oidc).toBeNull();
    });
  });

  describe('module-only edges', () => {
    it('TCP edge ip_restriction: put, read, delete; an unknown edge is left out', async () => {
      const kind = kindByName('tcp_edges');
      const edge = await post(conn.api, '/edges/tcp', { description: 'ssh' });
      const id = edge.id as string;
      const value = { ip_policies: [ipPolicyId] };

      const put = await conn.api.request(kind.moduleRequest({ id }, 'ip_restriction', value));
      const [live] = await kind.readLive({ api: conn.api, ids: [id] });

      expect(put.status).toBe(200);
      expect(live?.spec).toEqual(kind.normalizeDesired({ ip_restriction: value }));
      expect(live?.marker).toBeNull();

      await conn.api.request(kind.moduleRequest({ id }, 'ip_restriction', null));
      const missingId = 'edgtcp_000000000000000000000000000';
      const afterDelete = await kind.readLive({ api: conn.api, ids: [id, missingId] });

      expect(afterDelete).toHaveLength(1);
      expect(afterDelete[0]?.spec).toEqual({ ip_restriction: null });
    });

    it('TLS edge mutual_tls and tls_termination: put, read, delete', async () => {
      const kind = kindByName('tls_edges');
      const id = (await post(conn.api, '/edges/tls', { description: 'db' })).id as string;
      const desired = {
        mutual_tls: { certificate_authorities: [caId] },
        tls_termination: { terminate_at: 'edge', min_version: '1.3' },
      };

      await conn.api.request(kind.moduleRequest({ id }, 'mutual_tls', desired.mutual_tls));
      await conn.api.request(kind.moduleRequest({ id }, 'tls_termination', desired.tls_termination));
      const [live] = await kind.readLive({ api: conn.api, ids: [id] });

      expect(live?.spec).toEqual(kind.normalizeDesired(desired));

      await conn.api.request(kind.moduleRequest({ id }, 'mutual_tls', null));
      await conn.api.request(kind.moduleRequest({ id }, 'tls_termination', { terminate_at: 'upstream' }));
      const [after] = await kind.readLive({ api: conn.api, ids: [id] });

      expect(after?.spec).toEqual({
        mutual_tls: null,
        tls_termination: { enabled: true, terminate_at: 'upstream', min_version: null },
      });
    });
  });

  describe('service errors reach the caller typed', () => {
    it('404 not_found for an unknown ID', async () => {
      const error = await get(conn.api, '/ip_policy_rules/ipr_000000000000000000000000000').catch(
        (e: unknown) => e,
      );

      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 404, errorCode: 'not_found' });
    });

    it('400 invalid_field naming the field', async () => {
      const kind = kindByName('ip_policy_rules');
      const request = kind.createRequest(
        { cidr: 'not-a-cidr', ip_policy_id: ipPolicyId, action: 'allow' },
        '{}',
      );

      await expect(conn.api.request(request)).rejects.toMatchObject({
        status: 400,
        errorCode: 'invalid_field',
        details: { field: 'cidr' },
      });
    });

    it('400 reference_not_found for a reference that does not exist', async () => {
      const kind = kindByName('ip_policy_rules');
      const request = kind.createRequest(
        { cidr: '10.9.0.0/16', ip_policy_id: 'ipp_000000000000000000000000000', action: 'allow' },
        '{}',
      );

      await expect(conn.api.request(request)).rejects.toMatchObject({
        status: 400,
        errorCode: 'reference_not_found',
      });
    });
  });
});

describe('lists across pages', () => {
  let conn: EmulatorConnection;

  beforeAll(async () => {
    conn = await connectEmulator({ pageSizeMax: 3 });
  });

  afterAll(async () => {
    await conn?.close();
  });

  it('reads every page of a list and returns every object once', async () => {
    const kind = kindByName('ip_policy_rules');
    const policy = (await post(conn.api, '/ip_policies', {})).id as string;
    for (let i = 0; i < 8; i += 1)
      await createManaged(
        conn.api,
        kind,
        { cidr: `10.0.${i}.0/24`, ip_policy_id: policy, action: 'allow' },
        `r${i}`,
      );
    const pagesBefore = conn.api.stats().pages;

    const objects = await kind.readLive({ api: conn.api, ids: [] });

    expect(objects.map((object) => object.spec.cidr).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `10.0.${i}.0/24`).sort(),
    );
    expect(new Set(objects.map((object) => object.id)).size).toBe(8);
    expect(conn.api.stats().pages - pagesBefore).toBe(3);
  });
});
