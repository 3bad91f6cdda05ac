import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

describe('examples/emulator-seed.yaml', () => {
  let h: EmulatorHandle;
  beforeAll(async () => {
    h = await openEmulator({ seed: await loadSeedFile('examples/emulator-seed.yaml') });
  });
  afterAll(async () => {
    await h.emulator.close();
  });

  it('holds the fixed IDs the example manifests reference', async () => {
    const policies = await h.call('GET', '/ip_policies');
    const configs = await h.call('GET', '/endpoint_configurations');
    const edge = await h.call('GET', '/edges/https/edghts_WebEdge00000000000000000001');
    const tcp = await h.call('GET', '/edges/tcp/edgtcp_SshEdge00000000000000000001');
    const tls = await h.call('GET', '/edges/tls/edgtls_DbEdge000000000000000000001');

    expect(policies.body.ip_policies.map((p: { id: string }) => p.id).sort()).toEqual([
      'ipp_BlockListPolicy000000000001',
      'ipp_OfficeVpnPolicy000000000001',
    ]);
    expect(configs.body.endpoint_configurations[0].id).toBe('ec_BastionEndpointConfig000001');
    expect(edge.body.hostports).toEqual(['web.example.com:443']);
    expect(edge.body.routes.map((r: { id: string; match: string }) => [r.id, r.match])).toEqual([
      ['edghtsrt_WebAppRoute0000000000000001', '/app'],
      ['edghtsrt_WebApiRoute0000000000000001', '/api'],
    ]);
    expect(edge.body.routes[1].compression).toEqual({ enabled: true });
    expect(edge.body.routes[0].oidc).toBeNull();
    expect(tcp.status).toBe(200);
    expect(tcp.body.ip_restriction).toBeNull();
    expect(tls.status).toBe(200);
  });
});
