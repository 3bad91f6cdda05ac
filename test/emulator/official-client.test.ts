import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ngrok } from '@ngrok/ngrok-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';

/**
 * The family's official TypeScript client (@ngrok/ngrok-api, unchanged)
 * against the emulator. The only change is the version header's name, which
 * a loopback proxy renames: this service is a renamed member of the family.
 */
const POLICY = 'ipp_OfficialClientPolicy0000001';
const TCP = 'edgtcp_OfficialClientTcp0000000001';
const EDGE = 'edghts_OfficialClientEdge000000001';
const ROUTE = 'edghtsrt_OfficialClientRoute00000001';
const corpRoot = readFileSync('test/fixtures/certs/corp-root.pem', 'utf8');

interface Proxy {
  readonly url: string;
  /** Every request the client sent, as `METHOD /path?query`, with the emulator's status. */
  readonly seen: { readonly request: string; readonly status: number }[];
  close(): Promise<void>;
}

/** Forwards every request to `target`, renaming `Ngrok-Version` to `Service-Version` and nothing else. */
async function startRenamingProxy(target: string): Promise<Proxy> {
  const seen: { request: string; status: number }[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers };
    if (headers['ngrok-version'] !== undefined) {
      headers['service-version'] = headers['ngrok-version'];
      delete headers['ngrok-version'];
    }
    delete headers.host;
    const forwarded = request(
      `${target}${incoming.url ?? '/'}`,
      { method: incoming.method ?? 'GET', headers },
      (answer) => {
        seen.push({ request: `${incoming.method} ${incoming.url}`, status: answer.statusCode ?? 0 });
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Version 0.11.0 parses every answer as JSON, a DELETE's empty 204 too (the
 * spec's answer, and the real service's), so its delete rejects with a
 * SyntaxError after the service performed it. A delete counts as done when
 * the emulator answered 204 and the package failed only in that parse; the
 * tests then check through the client's own get that the object is gone.
 */
async function deleteThrough(proxy: Proxy, remove: () => Promise<void>): Promise<number> {
  const before = proxy.seen.length;
  const failure = await remove().then(
    () => undefined,
    (error: unknown) => error,
  );
  const answered = proxy.seen.slice(before).find((entry) => entry.request.startsWith('DELETE '));
  if (failure !== undefined && !(failure instanceof SyntaxError)) throw failure;
  return answered?.status ?? 0;
}

describe('the official TypeScript client against the emulator', () => {
  let emulator: RunningEmulator;
  let proxy: Proxy;
  let ngrok: Ngrok;

  beforeAll(async () => {
    // Small pages, so the client's pager has to follow next_page_uri with its beforeId.
    emulator = await startEmulator({
      pageSizeMax: 2,
      seed: {
        ip_policies: [{ id: POLICY }],
        tcp_edges: [{ id: TCP }],
        https_edges: [{ id: EDGE, routes: [{ id: ROUTE, match_type: 'path_prefix', match: '/app' }] }],
      },
    });
    proxy = await startRenamingProxy(emulator.url);
    ngrok = new Ngrok({ apiToken: emulator.apiKey, baseUrl: proxy.url });
  });
  afterAll(async () => {
    await proxy.close();
    await emulator.close();
  });

  it('creates, reads, updates, lists and deletes IP policy rules', async () => {
    const cidrs = ['10.10.0.0/16', '10.11.0.0/16', '10.12.0.0/16'];
    const created = [];
    for (const cidr of cidrs)
      created.push(await ngrok.ipPolicyRules.create({ cidr, ipPolicyId: POLICY, action: 'deny' }));
    const first = created[0] as (typeof created)[number];

    const read = await ngrok.ipPolicyRules.get(first.id);
    const updated = await ngrok.ipPolicyRules.update({
      id: first.id,
      description: 'from the official client',
    });
    const listed = await ngrok.ipPolicyRules.list();
    const deleted = await deleteThrough(proxy, () => ngrok.ipPolicyRules.delete(first.id));
    const afterDelete = await ngrok.ipPolicyRules.get(first.id).catch((error: unknown) => error);

    expect(read).toMatchObject({
      id: first.id,
      cidr: '10.10.0.0/16',
      action: 'deny',
      ipPolicy: { id: POLICY },
    });
    expect(updated).toMatchObject({ id: first.id, description: 'from the official client' });
    expect(listed.map((rule) => rule.id).sort()).toEqual(created.map((rule) => rule.id).sort());
    expect(deleted).toBe(204);
    expect(afterDelete).toMatchObject({ statusCode: 404 });
  });

  it('creates, reads, updates, lists and deletes reserved addresses', async () => {
    const created = await ngrok.reservedAddrs.create({ description: 'bastion', region: 'eu' });

    const read = await ngrok.reservedAddrs.get(created.id);
    const updated = await ngrok.reservedAddrs.update({ id: created.id, metadata: '{"team":"net"}' });
    const listed = await ngrok.reservedAddrs.list();
    const deleted = await deleteThrough(proxy, () => ngrok.reservedAddrs.delete(created.id));
    const afterDelete = await ngrok.reservedAddrs.get(created.id).catch((error: unknown) => error);

    expect(afterDelete).toMatchObject({ statusCode: 404 });
    expect(read).toMatchObject({
      id: created.id,
      region: 'eu',
      description: 'bastion',
      endpointConfiguration: null,
    });
    expect(updated.metadata).toBe('{"team":"net"}');
    expect(listed.map((addr) => addr.id)).toContain(created.id);
    expect(deleted).toBe(204);
  });

  it('creates, reads, updates, lists and deletes certificate authorities', async () => {
    const created = await ngrok.certificateAuthorities.create({ caPem: corpRoot, description: 'corp root' });

    const read = await ngrok.certificateAuthorities.get(created.id);
    const updated = await ngrok.certificateAuthorities.update({
      id: created.id,
      description: 'corp root CA',
    });
    const listed = await ngrok.certificateAuthorities.list();
    const deleted = await deleteThrough(proxy, () => ngrok.certificateAuthorities.delete(created.id));
    const afterDelete = await ngrok.certificateAuthorities.get(created.id).catch((error: unknown) => error);

    expect(afterDelete).toMatchObject({ statusCode: 404 });
    expect(read).toMatchObject({
      id: created.id,
      caPem: `${corpRoot.trim()}\n`,
      keyUsages: ['digital_signature', 'cert_sign', 'crl_sign'],
    });
    expect(updated.description).toBe('corp root CA');
    expect(listed.map((ca) => ca.id)).toEqual([created.id]);
    expect(deleted).toBe(204);
  });

  it('creates, reads, updates, lists and deletes HTTPS edges, with modules', async () => {
    const ca = await ngrok.certificateAuthorities.create({ caPem: corpRoot });
    const created = await ngrok.edges.edgesHttps.create({
      description: 'web',
      hostports: ['web.example.com:443'],
      mutualTls: { certificateAuthorityIds: [ca.id] },
      tlsTermination: { minVersion: '1.2' },
    });

    const read = await ngrok.edges.edgesHttps.get(created.id);
    const updated = await ngrok.edges.edgesHttps.update({
      id: created.id,
      hostports: ['web.example.com:443', 'www.example.com:443'],
      mutualTls: { enabled: false, certificateAuthorityIds: [] },
    });
    const listed = await ngrok.edges.edgesHttps.list();
    const deleted = await deleteThrough(proxy, () => ngrok.edges.edgesHttps.delete(created.id));
    await deleteThrough(proxy, () => ngrok.certificateAuthorities.delete(ca.id));
    const afterDelete = await ngrok.edges.edgesHttps.get(created.id).catch((error: unknown) => error);

    expect(afterDelete).toMatchObject({ statusCode: 404 });

    expect(read).toMatchObject({
      id: created.id,
      hostports: ['web.example.com:443'],
      mutualTls: { enabled: true, certificateAuthorities: [{ id: ca.id }] },
      tlsTermination: { enabled: true, terminateAt: 'edge', minVersion: '1.2' },
      routes: [],
    });
    expect(updated).toMatchObject({
      hostports: ['web.example.com:443', 'www.example.com:443'],
      mutualTls: { enabled: false },
    });
    expect(listed.map((edge) => edge.id).sort()).toEqual([created.id, EDGE].sort());
    expect(deleted).toBe(204);
  });

  it('replaces, reads and deletes modules through their { id, module } envelopes', async () => {
    const modules = ngrok.edgeModules;

    const ipRestriction = await modules.tcpEdgeIpRestrictionModule.replace({
      id: TCP,
      module: { ipPolicyIds: [POLICY] },
    });
    const mutualTls = await modules.httpsEdgeMutualTlsModule.replace({
      id: EDGE,
      module: { enabled: false, certificateAuthorityIds: [] },
    });
    const oidc = await modules.edgeRouteOidcModule.replace({
      edgeId: EDGE,
      id: ROUTE,
      module: {
        optionsPassthrough: false,
        cookiePrefix: 'app.',
        inactivityTimeout: 3600,
        maximumDuration: 86_400,
        issuer: 'https://accounts.example.com',
        clientId: 'app',
        clientSecret: 's3cret',
        scopes: ['openid'],
      },
    });
    const oidcRead = await modules.edgeRouteOidcModule.get({ edgeId: EDGE, id: ROUTE });
    const deleted = await deleteThrough(proxy, () => modules.tcpEdgeIpRestrictionModule.delete(TCP));

    expect(ipRestriction).toMatchObject({ enabled: true, ipPolicies: [{ id: POLICY }] });
    expect(mutualTls).toEqual({ enabled: false, certificateAuthorities: [] });
    expect(oidc).toMatchObject({ cookiePrefix: 'app.', maximumDuration: 86_400, scopes: ['openid'] });
    expect(oidcRead).toEqual(oidc);
    expect(deleted).toBe(204);
  });

  it('sent nothing the emulator refused, and paged with beforeId', () => {
    const refused = proxy.seen.filter((entry) => entry.status >= 400 && !entry.request.startsWith('GET '));

    expect(refused).toEqual([]);
    expect(proxy.seen.some((entry) => entry.request.includes('beforeId='))).toBe(true);
  });
});
