import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

describe('emulator smoke', () => {
  let h: EmulatorHandle;
  beforeAll(async () => {
    h = await openEmulator({
      seed: { ip_policies: [{ id: 'ipp_OfficeVpnPolicy000000000001', description: 'office' }] },
    });
  });
  afterAll(async () => {
    await h.emulator.close();
  });

  it('creates and reads a rule', async () => {
    const created = await h.call('POST', '/ip_policy_rules', {
      cidr: '10.0.0.0/8',
      ip_policy_id: 'ipp_OfficeVpnPolicy000000000001',
      action: 'allow',
    });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^ipr_[0-9A-Za-z]{27}$/);
    const read = await h.call('GET', `/ip_policy_rules/${created.body.id}`);
    expect(read.body).toEqual(created.body);
    const list = await h.call('GET', '/ip_policy_rules');
    expect(list.body.ip_policy_rules).toHaveLength(1);
    const edge = await h.call('POST', '/edges/https', { hostports: ['a.example.com:443'] });
    expect(edge.status).toBe(201);
    expect(edge.body.routes).toEqual([]);
  });
});
