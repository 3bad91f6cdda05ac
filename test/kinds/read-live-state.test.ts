import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { type EmulatorSeed, loadSeedFile } from '../../src/emulator/seed.js';
import { KindError } from '../../src/kinds/kind-error.js';
import type { LiveObject } from '../../src/kinds/live-state.js';
import { readLiveState } from '../../src/kinds/read-live-state.js';
import { KINDS, kindByName } from '../../src/kinds/registry.js';
import { readObjects } from '../support/read-objects.js';
import { connectEmulator, type EmulatorConnection, seededRandom } from './emulator-connection.js';

const CA_PEM = readFileSync(new URL('../fixtures/certs/corp-root.pem', import.meta.url), 'utf8');
const POLICY = 'ipp_ContractPolicy0000000000001';
const TCP = 'edgtcp_ContractTcpEdge000000000001';
const TCP_BARE = 'edgtcp_ContractTcpEdge000000000002';
const TLS = 'edgtls_ContractTlsEdge000000000001';
const MISSING_TCP = 'edgtcp_NotThere00000000000000000001';

function seed(counts: { rules: number; addrs: number; cas: number; edges: number }): EmulatorSeed {
  return {
    ip_policies: [{ id: POLICY, description: 'contract' }],
    ip_policy_rules: Array.from({ length: counts.rules }, (_, i) => ({
      cidr: `10.${Math.floor(i / 256)}.${i % 256}.0/24`,
      ip_policy_id: POLICY,
      action: i % 2 === 0 ? 'allow' : 'deny',
    })),
    reserved_addrs: Array.from({ length: counts.addrs }, (_, i) => ({ description: `addr ${i}` })),
    certificate_authorities: Array.from({ length: counts.cas }, (_, i) => ({
      ca_pem: CA_PEM,
      description: `ca ${i}`,
    })),
    https_edges: Array.from({ length: counts.edges }, (_, i) => ({ hostports: [`e${i}.example.com:443`] })),
    tcp_edges: [
      { id: TCP, ip_restriction: { ip_policy_ids: [POLICY] } },
      { id: TCP_BARE, description: 'no modules' },
    ],
    tls_edges: [{ id: TLS, tls_termination: { terminate_at: 'edge', min_version: '1.2' } }],
  };
}

/** The ApiError at the root of a wrapped error (KindError → PaginationError → ApiError). */
function apiErrorIn(error: unknown): ApiError | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof ApiError) return current;
  }
  return undefined;
}

const SMALL = seed({ rules: 3, addrs: 2, cas: 2, edges: 2 });
const ID_BY_KIND = { tcp_edges: [TCP, TCP_BARE, MISSING_TCP], tls_edges: [TLS] };

describe('readLiveState', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  async function connect(...args: Parameters<typeof connectEmulator>): Promise<EmulatorConnection> {
    const conn = await connectEmulator(...args);
    open.push(conn);
    return conn;
  }

  afterEach(async () => {
    await Promise.all(open.splice(0).map((resource) => resource.close()));
  });

  it('reads every kind, the named module-only edges, and reports the ones the service does not know', async () => {
    const conn = await connect({ seed: SMALL });

    const state = await readLiveState(conn.api, { kinds: KINDS, idsByKind: ID_BY_KIND });

    expect(state.complete).toBe(true);
    expect(state.missingIds).toEqual([MISSING_TCP]);
    expect(readObjects(state, 'ip_policy_rules')).toHaveLength(3);
    expect(readObjects(state, 'reserved_addrs')).toHaveLength(2);
    expect(readObjects(state, 'certificate_authorities')).toHaveLength(2);
    expect(readObjects(state, 'https_edges')).toHaveLength(2);
    expect(readObjects(state, 'tcp_edges').map((edge) => [edge.id, edge.spec])).toEqual(
      expect.arrayContaining([
        [TCP, { ip_restriction: { enabled: true, ip_policies: [POLICY] } }],
        [TCP_BARE, { ip_restriction: null }],
      ]),
    );
    expect(readObjects(state, 'tls_edges').map((edge) => edge.spec)).toEqual([
      { mutual_tls: null, tls_termination: { enabled: true, terminate_at: 'edge', min_version: '1.2' } },
    ]);
    // 4 one-page lists + 3 TCP edges × 1 module + 1 TLS edge × 2 modules, + 1 edge read for each TCP
    // edge whose every module read was 404 (TCP_BARE, MISSING_TCP): status alone tells them apart.
    expect(state.stats).toMatchObject({ requests: 11, pages: 4 });
    expect(Object.keys(state.objects)).toEqual(KINDS.map((kind) => kind.name));
  });

  it('reads the example seed that npm start loads: adopted edge with its routes, named TCP/TLS edges', async () => {
    const conn = await connect({
      seed: await loadSeedFile(fileURLToPath(new URL('../../examples/emulator-seed.yaml', import.meta.url))),
    });
    const tcp = 'edgtcp_SshEdge00000000000000000001';
    const tls = 'edgtls_DbEdge000000000000000000001';

    const state = await readLiveState(conn.api, {
      kinds: KINDS,
      idsByKind: { tcp_edges: [tcp], tls_edges: [tls] },
    });

    expect(state.missingIds).toEqual([]);
    expect(readObjects(state, 'https_edges')).toHaveLength(1);
    expect(readObjects(state, 'https_edges')[0]).toMatchObject({
      id: 'edghts_WebEdge00000000000000000001',
      marker: null,
      spec: {
        hostports: ['web.example.com:443'],
        description: 'web',
        mutual_tls: null,
        tls_termination: null,
        routes: expect.arrayContaining([
          {
            id: 'edghtsrt_WebAppRoute0000000000000001',
            match_type: 'path_prefix',
            match: '/app',
            description: 'web application',
            oidc: null,
          },
          {
            id: 'edghtsrt_WebApiRoute0000000000000001',
            match_type: 'path_prefix',
            match: '/api',
            description: 'public API',
            oidc: null,
            compression: { enabled: true },
          },
        ]),
      },
    });
    expect(readObjects(state, 'tcp_edges').map((edge) => edge.spec)).toEqual([{ ip_restriction: null }]);
    expect(readObjects(state, 'tls_edges').map((edge) => edge.spec)).toEqual([
      { mutual_tls: null, tls_termination: null },
    ]);
  });

  it('reads 250 rules, 150 addresses, 120 CAs and 110 HTTPS edges in the minimal 9 list requests', async () => {
    const conn = await connect({ seed: seed({ rules: 250, addrs: 150, cas: 120, edges: 110 }) });
    await conn.resetStats();

    const state = await readLiveState(conn.api, { kinds: KINDS });
    const served = await conn.stats();

    expect(readObjects(state, 'ip_policy_rules')).toHaveLength(250);
    expect(readObjects(state, 'reserved_addrs')).toHaveLength(150);
    expect(readObjects(state, 'certificate_authorities')).toHaveLength(120);
    expect(readObjects(state, 'https_edges')).toHaveLength(110);
    for (const { name } of KINDS)
      expect(new Set(readObjects(state, name).map((o) => o.id)).size).toBe(readObjects(state, name).length);
    expect(served.byRoute).toEqual({
      'GET /ip_policy_rules': 3,
      'GET /reserved_addrs': 2,
      'GET /certificate_authorities': 2,
      'GET /edges/https': 2,
    });
    expect(served.total).toBe(9);
    expect(state.stats).toMatchObject({ requests: 9, pages: 9 });
  });

  it('rejects with live_read_failed and the 401 as cause when the key is wrong, without the key in the message', async () => {
    const conn = await connect({ seed: SMALL }, { apiKey: 'wrong-key-value' });

    const error = await readLiveState(conn.api, { kinds: KINDS }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(KindError);
    expect(error).toMatchObject({ code: 'live_read_failed' });
    expect(apiErrorIn(error)).toMatchObject({ status: 401, errorCode: 'unauthorized' });
    expect(String((error as Error).message)).not.toContain('wrong-key-value');
    expect(String((error as Error).message)).not.toContain(conn.emulator.apiKey);
  });

  it('succeeds through 5xx faults (retried) and returns the whole account', async () => {
    // Enough attempts that no request of this read fails on every one: the read must come back whole.
    const conn = await connect(
      { seed: SMALL, faultRate: 0.3, random: seededRandom(7) },
      { retry: { maxAttempts: 12 } },
    );

    const state = await readLiveState(conn.api, { kinds: KINDS, idsByKind: ID_BY_KIND });
    const served = await conn.stats();

    expect(state.complete).toBe(true);
    expect(readObjects(state, 'ip_policy_rules')).toHaveLength(3);
    expect(readObjects(state, 'tcp_edges')).toHaveLength(2);
    const faults = Object.entries(served.byStatus).filter(([status]) => Number(status) >= 500);
    expect(faults.reduce((sum, [, n]) => sum + n, 0)).toBeGreaterThan(0);
    expect(state.stats.requests).toBeGreaterThan(9);
  });

  it('module writes survive dropped connections (retried) and the next read sees them', async () => {
    const conn = await connect(
      { seed: SMALL, dropRate: 0.5, random: seededRandom(5) },
      { retry: { maxAttempts: 12 } },
    );
    const tcp = kindByName('tcp_edges');
    const tls = kindByName('tls_edges');

    for (const minVersion of ['1.3', '1.2', '1.3']) {
      await conn.api.request(tls.moduleRequest({ id: TLS }, 'tls_termination', { min_version: minVersion }));
    }
    await conn.api.request(tcp.moduleRequest({ id: TCP_BARE }, 'ip_restriction', { ip_policies: [POLICY] }));
    await conn.api.request(tls.moduleRequest({ id: TLS }, 'tls_termination', { terminate_at: 'upstream' }));
    await conn.api.request(tcp.moduleRequest({ id: TCP }, 'ip_restriction', null));
    const state = await readLiveState(conn.api, { kinds: KINDS, idsByKind: ID_BY_KIND });
    const served = await conn.stats();

    expect(served.byStatus.dropped).toBeGreaterThan(0);
    expect(conn.api.stats().retries).toBeGreaterThan(0);
    expect(Object.fromEntries(readObjects(state, 'tcp_edges').map((edge) => [edge.id, edge.spec]))).toEqual({
      [TCP]: { ip_restriction: null },
      [TCP_BARE]: { ip_restriction: { enabled: true, ip_policies: [POLICY] } },
    });
    expect(readObjects(state, 'tls_edges')[0]?.spec.tls_termination).toEqual({
      enabled: true,
      terminate_at: 'upstream',
      min_version: null,
    });
  });

  it('never returns a partial snapshot: a kind that keeps failing rejects the whole read', async () => {
    const conn = await connect(
      { seed: SMALL, faultRate: 1, random: seededRandom(3) },
      { retry: { maxAttempts: 2 } },
    );

    await expect(readLiveState(conn.api, { kinds: KINDS, idsByKind: ID_BY_KIND })).rejects.toMatchObject({
      code: 'live_read_failed',
      kind: expect.any(String),
    });
  });

  it('waits out 429 with Retry-After and completes', async () => {
    const conn = await connect(
      { seed: SMALL, rateLimit: { requests: 3, windowMs: 1000 } },
      { realSleep: true },
    );

    const state = await readLiveState(conn.api, { kinds: KINDS, idsByKind: ID_BY_KIND });
    const served = await conn.stats();

    expect(readObjects(state, 'https_edges')).toHaveLength(2);
    expect(served.byStatus['429']).toBeGreaterThan(0);
  });

  it('retries 429 without Retry-After (backoff) and completes', async () => {
    const conn = await connect({ seed: SMALL });
    let refused = 0;
    const proxy: Server = createServer(async (req, res) => {
      if (refused < 2) {
        refused += 1;
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error_code: 'rate_limited', status_code: 429, msg: 'slow down', details: {} }),
        );
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      const upstream = await fetch(`${conn.emulator.url}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
      });
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      res.end(await upstream.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => proxy.close(() => resolve())) });
    const port = (proxy.address() as AddressInfo).port;
    const api = createApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: conn.emulator.apiKey,
      budget: new RequestBudget({ requests: 1000, windowMs: 60_000 }),
      sleep: async () => {},
    });

    const state = await readLiveState(api, { kinds: KINDS });

    expect(refused).toBe(2);
    expect(readObjects(state, 'ip_policy_rules')).toHaveLength(3);
    expect(api.stats().retries).toBeGreaterThanOrEqual(2);
  });

  it('holds, for each object a listed kind reads, what `keep` gives for it', async () => {
    const conn = await connect({ seed: SMALL });
    const held = new Map<string, LiveObject>();

    const state = await readLiveState(conn.api, {
      kinds: KINDS,
      keep: (object) => {
        const kept = { ...object };
        held.set(object.id, kept);
        return kept;
      },
    });

    const listed = [...readObjects(state, 'ip_policy_rules'), ...readObjects(state, 'https_edges')];
    expect(listed).toHaveLength(5);
    for (const object of listed) expect(object).toBe(held.get(object.id));
  });

  it('stops when the caller aborts', async () => {
    const conn = await connect({ seed: SMALL });
    const abort = new AbortController();
    abort.abort();

    await expect(readLiveState(conn.api, { kinds: KINDS, signal: abort.signal })).rejects.toMatchObject({
      code: 'live_read_failed',
    });
  });

  it('takes its duration from the injected clock', async () => {
    const conn = await connect({ seed: SMALL });
    let tick = 0;

    const state = await readLiveState(conn.api, { kinds: KINDS, now: () => (tick += 250) });

    expect(state.stats.durationMs).toBe(250);
  });
});
