import { writeFile } from 'node:fs/promises';
import { type ApiClient, createApiClient } from '../src/api/client.js';
import { RequestBudget } from '../src/api/request-budget.js';
import { formatTimestamp, type HandlerEnv } from '../src/emulator/handler.js';
import type { RequestStatsSnapshot } from '../src/emulator/request-stats.js';
import { newId } from '../src/emulator/resource-id.js';
import { applySeed, type EmulatorSeed } from '../src/emulator/seed.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../src/emulator/server.js';
import { EmulatorStore } from '../src/emulator/store.js';

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
 * Starts an emulator holding `seed`. The seed's IP policy rules are inserted
 * straight into a data file instead of going through the create handler:
 * that handler checks uniqueness against every rule (linear per create), so
 * seeding 100,000 rules through it would take minutes. The rules are built
 * from the seed's fields exactly as the handler stores them, and the
 * synthetic CIDRs are distinct by construction.
 */
export async function startSeededEmulator(
  seed: EmulatorSeed,
  dataFile: string,
  options: EmulatorOptions = {},
): Promise<RunningEmulator> {
  const { ip_policy_rules: rules = [], ...rest } = seed;
  const store = new EmulatorStore();
  const now = options.now ?? Date.now;
  const env: HandlerEnv = { store, baseUrl: '', now, pageSizeMax: 100 };
  applySeed(env, rest);
  for (const rule of rules) {
    store.insert('ip_policy_rules', {
      id: newId('ip_policy_rule'),
      created_at: formatTimestamp(now()),
      seq: store.takeSeq(),
      ...(typeof rule.description === 'string' ? { description: rule.description } : {}),
      ...(typeof rule.metadata === 'string' ? { metadata: rule.metadata } : {}),
      cidr: String(rule.cidr),
      ip_policy_id: String(rule.ip_policy_id),
      action: rule.action === 'deny' ? 'deny' : 'allow',
    });
  }
  await writeFile(dataFile, JSON.stringify(store.snapshot()));
  return startEmulator({ ...options, dataFile });
}
