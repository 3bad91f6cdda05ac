import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { type ApiClient, type ApiClientOptions, createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { seededRandom } from './fake-time.js';

const POLICY = 'ipp_OfficeVpnPolicy000000000001';

let emulators: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.map((emulator) => emulator.close()));
  emulators = [];
});

async function emulatorWith(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({
    seed: { ip_policies: [{ id: POLICY, description: 'office VPN' }] },
    ...options,
  });
  emulators.push(emulator);
  return emulator;
}

function clientOf(emulator: RunningEmulator, options: Partial<ApiClientOptions> = {}): ApiClient {
  return createApiClient({
    baseUrl: emulator.url,
    apiKey: emulator.apiKey,
    budget: new RequestBudget(),
    ...options,
  });
}

async function emulatorStats(
  emulator: RunningEmulator,
): Promise<{ total: number; byStatus: Record<string, number> }> {
  const response = await fetch(`${emulator.url}/_emulator/stats`, {
    headers: { Authorization: `Bearer ${emulator.apiKey}` },
  });
  return (await response.json()) as { total: number; byStatus: Record<string, number> };
}

async function createRules(api: ApiClient, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const created = await api.request<{ id: string }>({
      method: 'POST',
      path: '/ip_policy_rules',
      body: { cidr: `10.0.${i}.0/24`, ip_policy_id: POLICY, action: 'allow' },
    });
    ids.push(created.body.id);
  }
  return ids;
}

describe('createApiClient against the emulator', () => {
  it('creates, reads every page of the list (absolute next_page_uri) and deletes', async () => {
    const emulator = await emulatorWith({ pageSizeMax: 2 });
    const api = clientOf(emulator);
    const ids = await createRules(api, 5);

    const listed: string[] = [];
    for await (const page of api.paginate<{ id: string }>('/ip_policy_rules', 'ip_policy_rules')) {
      listed.push(...page.items.map((item) => item.id));
    }
    const deleted = await api.request({ method: 'DELETE', path: `/ip_policy_rules/${ids[0]}` });

    expect(listed).toEqual([...ids].reverse());
    expect(api.stats()).toMatchObject({ pages: 3, requests: 9, retries: 0 });
    expect(deleted.status).toBe(204);
  });

  it('turns the emulator error bodies into ApiErrors with field and operation id', async () => {
    const emulator = await emulatorWith();
    const api = clientOf(emulator);

    const invalid = await api
      .request({
        method: 'POST',
        path: '/ip_policy_rules',
        body: { cidr: 'nope', ip_policy_id: POLICY, action: 'allow' },
      })
      .catch((error: unknown) => error);
    const missing = await api
      .request({ method: 'GET', path: '/ip_policy_rules/ipr_000000000000000000000000000' })
      .catch((error: unknown) => error);
    const wrongKey = await clientOf(emulator, { apiKey: 'not-the-key' })
      .request({ method: 'GET', path: '/ip_policy_rules' })
      .catch((error: unknown) => error);

    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid).toMatchObject({ status: 400, errorCode: 'invalid_field', details: { field: 'cidr' } });
    expect((invalid as ApiError).operationId).toMatch(/^op_/);
    expect((invalid as ApiError).message).toMatch(
      /^POST \/ip_policy_rules: 400 invalid_field \(cidr\): .+ \[op_.+\]$/,
    );
    expect(missing).toMatchObject({ status: 404, errorCode: 'not_found' });
    expect(wrongKey).toMatchObject({ status: 401, errorCode: 'unauthorized' });
    expect((wrongKey as Error).message).not.toContain(emulator.apiKey);
  });

  it('waits out the emulator rate limit (429 with Retry-After) and completes every request', async () => {
    const emulator = await emulatorWith({ rateLimit: { requests: 3, windowMs: 1000 } });
    const api = clientOf(emulator);

    const results = await Promise.all(
      Array.from({ length: 5 }, () => api.request({ method: 'GET', path: '/ip_policy_rules' })),
    );

    expect(results.every((result) => result.status === 200)).toBe(true);
    const stats = await emulatorStats(emulator);
    expect(stats.byStatus['429']).toBeGreaterThanOrEqual(1);
    expect(api.stats().retries).toBe(stats.byStatus['429']);
    expect(api.stats().rateLimitWaitMs).toBeGreaterThan(0);
  });

  it('retries reads through injected faults and drops until they succeed', async () => {
    const emulator = await emulatorWith({ faultRate: 0.3, dropRate: 0.2, random: seededRandom(11) });
    const api = clientOf(emulator, {
      sleep: async () => {},
      retry: { maxAttempts: 20, maxTotalWaitMs: 1e9, random: seededRandom(3) },
    });

    const results = await Promise.all(
      Array.from({ length: 10 }, () => api.request({ method: 'GET', path: '/ip_policy_rules' })),
    );

    expect(results.every((result) => result.status === 200)).toBe(true);
    expect(api.stats().retries).toBeGreaterThan(0);
    expect(api.stats().requests).toBe(10 + api.stats().retries);
  });
});
