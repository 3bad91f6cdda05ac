import { createApiClient } from '../../src/api/client.js';
import type { EdgeApi } from '../../src/api/edge-api.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { FakeTime } from './fake-time.js';

/** A client of `baseUrl` whose waits (budget, retries) take no real time; `maxAttempts` bounds its retries, `maxListObjects` its lists, `maxResponseBytes` its bodies. */
export function clientOnFakeTime(
  baseUrl: string,
  options: {
    readonly apiKey?: string;
    readonly maxAttempts?: number;
    readonly maxListObjects?: number;
    readonly maxResponseBytes?: number;
  } = {},
): EdgeApi {
  const time = new FakeTime();
  return createApiClient({
    baseUrl,
    apiKey: options.apiKey ?? 'sk_test_key',
    budget: new RequestBudget({ clock: time.clock, sleep: time.sleep }),
    clock: time.clock,
    sleep: time.sleep,
    ...(options.maxListObjects === undefined ? {} : { maxListObjects: options.maxListObjects }),
    ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
    ...(options.maxAttempts === undefined
      ? {}
      : { retry: { maxAttempts: options.maxAttempts, random: () => 0.5 } }),
  });
}
