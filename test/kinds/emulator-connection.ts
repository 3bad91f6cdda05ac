import { type ApiClient, createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import type { RetryPolicyOptions } from '../../src/api/retry-policy.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import type { Kind } from '../../src/kinds/kind.js';
import { KINDS } from '../../src/kinds/registry.js';

export interface EmulatorConnection {
  readonly emulator: RunningEmulator;
  readonly api: ApiClient;
  /** `GET /_emulator/stats` of the emulator. */
  stats(): Promise<{ total: number; byRoute: Record<string, number>; byStatus: Record<string, number> }>;
  resetStats(): Promise<void>;
  close(): Promise<void>;
}

/** Retries wait no real time: only the emulator's own windows (Retry-After) are real. */
const noWait = async (): Promise<void> => {};

/**
 * An emulator on 127.0.0.1 port 0 serving `kinds`, and a client for it with
 * a budget large enough not to matter, unless the test passes its own.
 */
export async function connectEmulator(
  options: EmulatorOptions = {},
  client: {
    readonly apiKey?: string;
    readonly retry?: RetryPolicyOptions;
    readonly realSleep?: boolean;
  } = {},
  kinds: readonly Kind[] = KINDS,
): Promise<EmulatorConnection> {
  const emulator = await startEmulator(options, kinds);
  const api = createApiClient({
    baseUrl: emulator.url,
    apiKey: client.apiKey ?? emulator.apiKey,
    budget: new RequestBudget({ requests: 1_000_000, windowMs: 60_000 }),
    timeoutMs: 5_000,
    ...(client.retry === undefined ? {} : { retry: client.retry }),
    ...(client.realSleep ? {} : { sleep: noWait }),
  });
  const headers = { Authorization: `Bearer ${emulator.apiKey}` };
  return {
    emulator,
    api,
    stats: async () => {
      const response = await fetch(`${emulator.url}/_emulator/stats`, { headers });
      return (await response.json()) as {
        total: number;
        byRoute: Record<string, number>;
        byStatus: Record<string, number>;
      };
    },
    resetStats: async () => {
      await fetch(`${emulator.url}/_emulator/stats`, { method: 'DELETE', headers });
    },
    close: () => emulator.close(),
  };
}

export { seededRandom } from '../support/seeded-random.js';
