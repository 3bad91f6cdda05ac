import { type ApiClient, createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { seededRandom } from './hand-plan.js';

export interface Harness {
  readonly emulator: RunningEmulator;
  readonly api: ApiClient;
  /** The emulator's own view, through a client with no budget to speak of, for assertions. */
  readonly inspect: ApiClient;
}

export async function startHarness(
  emulatorOptions: EmulatorOptions = {},
  budget: RequestBudget = new RequestBudget({ requests: 100_000, windowMs: 1000 }),
): Promise<Harness> {
  const emulator = await startEmulator(emulatorOptions);
  const fastRetry = { baseDelayMs: 5, maxDelayMs: 40, random: seededRandom(7) };
  const api = createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, budget, retry: fastRetry });
  const inspect = createApiClient({
    baseUrl: emulator.url,
    apiKey: emulator.apiKey,
    budget: new RequestBudget({ requests: 100_000, windowMs: 1000 }),
    retry: fastRetry,
  });
  return { emulator, api, inspect };
}

export async function createIpPolicy(harness: Harness): Promise<string> {
  const response = await harness.inspect.request<{ id: string }>({
    method: 'POST',
    path: '/ip_policies',
    body: { description: 'apply tests' },
  });
  return response.body.id;
}

export async function listAll<T>(harness: Pick<Harness, 'inspect'>, path: string, key: string): Promise<T[]> {
  const items: T[] = [];
  for await (const page of harness.inspect.paginate<T>(path, key)) items.push(...page.items);
  return items;
}

export async function emulatorStats(
  harness: Pick<Harness, 'emulator'>,
): Promise<{ total: number; byStatus: Record<string, number>; byRoute: Record<string, number> }> {
  const response = await fetch(`${harness.emulator.url}/_emulator/stats`, {
    headers: { authorization: `Bearer ${harness.emulator.apiKey}` },
  });
  return (await response.json()) as {
    total: number;
    byStatus: Record<string, number>;
    byRoute: Record<string, number>;
  };
}
