import { type ApiClient, createApiClient } from '../src/api/client.js';
import { RequestBudget } from '../src/api/request-budget.js';
import type { RequestStatsSnapshot } from '../src/emulator/request-stats.js';
import type { EmulatorSeed } from '../src/emulator/seed.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../src/emulator/server.js';

/** A budget that never binds: one window of a second holds at most a few thousand stamps. */
export function unlimitedBudget(): RequestBudget {
  return new RequestBudget({ requests: 1_000_000, windowMs: 1000 });
}

export function clientFor(emulator: RunningEmulator, budget: RequestBudget = unlimitedBudget()): ApiClient {
  return createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, budget, timeoutMs: 30_000 });
}

export async function emulatorStats(emulator: RunningEmulator): Promise<RequestStatsSnapshot> {
  const response = await fetch(`${emulator.url}/_emulator/stats`, {
    headers: { Authorization: `Bearer ${emulator.apiKey}` },
  });
  return (await response.json()) as RequestStatsSnapshot;
}

export async function resetEmulatorStats(emulator: RunningEmulator): Promise<void> {
  await fetch(`${emulator.url}/_emulator/stats`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${emulator.apiKey}` },
  });
}

/** Writes (POST, PATCH, PUT, DELETE) among the counted requests. */
export function writesIn(stats: RequestStatsSnapshot): number {
  return Object.entries(stats.byRoute)
    .filter(([route]) => !route.startsWith('GET '))
    .reduce((sum, [, count]) => sum + count, 0);
}

/** Starts an emulator holding `seed`, loaded through the same path as `edgesync emulator --seed`. */
export function startSeededEmulator(
  seed: EmulatorSeed,
  options: EmulatorOptions = {},
): Promise<RunningEmulator> {
  return startEmulator({ ...options, seed });
}
