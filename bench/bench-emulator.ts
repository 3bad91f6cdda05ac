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

/**
 * How far the clock moves on at each reading while seeding. An object's ID
 * and its created_at read it once each: two objects a second, the most an
 * apply within the service's budget (120 requests a minute) creates.
 */
const SEED_READING_MS = 250;

/**
 * Starts an emulator holding `seed`, loaded through the same path as
 * `edgesync emulator --seed`. Its objects are created as an apply within the
 * service's budget would have created them, not all within the same few
 * seconds: the live read shares a created_at equal to the one before it, and
 * a seed made at full speed would make that look better here than in an
 * account.
 */
export async function startSeededEmulator(
  seed: EmulatorSeed,
  options: EmulatorOptions = {},
): Promise<RunningEmulator> {
  let seeding = true;
  let reading = Date.now() - 2 * SEED_READING_MS * objectsIn(seed);
  const now =
    options.now ??
    ((): number => {
      if (!seeding) return Date.now();
      reading += SEED_READING_MS;
      return reading;
    });
  const emulator = await startEmulator({ ...options, now, seed });
  seeding = false;
  return emulator;
}

function objectsIn(seed: EmulatorSeed): number {
  let objects = 0;
  for (const entries of Object.values(seed) as (readonly { routes?: readonly unknown[] }[] | undefined)[]) {
    for (const entry of entries ?? []) objects += 1 + (entry.routes?.length ?? 0);
  }
  return objects;
}
