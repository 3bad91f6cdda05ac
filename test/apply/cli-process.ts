import type { ChildProcess } from 'node:child_process';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { BUILT_CLI } from '../support/built-cli.js';
import {
  type CliRun,
  finished,
  ROOT,
  runEdgesyncInProcess,
  runEdgesyncProcess,
  spawnEdgesync,
} from '../support/edgesync-cli.js';
import { emulatorStats, listAll } from './apply-harness.js';

export { type CliRun, finished, ROOT };
export const CLI = BUILT_CLI;
export const POLICY = 'ipp_BlockListPolicy000000000001';

export interface RuleItem {
  readonly id: string;
  readonly metadata?: string;
}

/** The examples' OIDC secret is read from the environment: any value does. */
const APPLY_ENV = { OIDC_CLIENT_SECRET: 'x' };

/** `edgesync apply ARGS` as a process against the emulator, with pipes (no TTY). */
export function spawnCli(emulator: RunningEmulator, args: readonly string[]): ChildProcess {
  return spawnEdgesync(['apply', ...args], { emulator, env: APPLY_ENV });
}

export function runCli(emulator: RunningEmulator, args: readonly string[]): Promise<CliRun> {
  return runEdgesyncProcess(['apply', ...args], { emulator, env: APPLY_ENV });
}

/** `edgesync apply ARGS` in this process: for tests of what apply decides, not of the process. */
export function applyInProcess(emulator: RunningEmulator, args: readonly string[]): Promise<CliRun> {
  return runEdgesyncInProcess(['apply', ...args], { emulator, env: APPLY_ENV });
}

export function inspectClient(emulator: RunningEmulator) {
  return createApiClient({
    baseUrl: emulator.url,
    apiKey: emulator.apiKey,
    budget: new RequestBudget({ requests: 100_000, windowMs: 1000 }),
  });
}

export function listRules(emulator: RunningEmulator): Promise<RuleItem[]> {
  return listAll<RuleItem>({ inspect: inspectClient(emulator) }, '/ip_policy_rules', 'ip_policy_rules');
}

export async function writes(emulator: RunningEmulator): Promise<number> {
  const stats = await emulatorStats({ emulator });
  return Object.entries(stats.byRoute)
    .filter(([route]) => !route.startsWith('GET '))
    .reduce((sum, [, count]) => sum + count, 0);
}

export async function waitFor(condition: () => Promise<boolean> | boolean): Promise<void> {
  for (let tries = 0; tries < 400; tries += 1) {
    if (await condition()) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 25));
  }
  throw new Error('condition not met');
}

export function rulesManifest(count: number): string {
  const entries = Array.from(
    { length: count },
    (_, index) =>
      `  r${index}:\n    ip_policy_id: ${POLICY}\n    cidr: 10.${Math.floor(index / 256)}.${index % 256}.0/24\n    action: deny\n`,
  );
  return `version: 1\nip_policy_rules:\n${entries.join('')}`;
}

/** `edgesync ARGS` as a process with exactly this environment (plus PATH), stdin closed. */
export function runEdgesync(args: readonly string[], env: Readonly<Record<string, string>>): Promise<CliRun> {
  return runEdgesyncProcess(args, { env });
}
