import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { BUILT_CLI } from '../support/built-cli.js';
import { emulatorStats, listAll } from './apply-harness.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = BUILT_CLI;
export const POLICY = 'ipp_BlockListPolicy000000000001';

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RuleItem {
  readonly id: string;
  readonly metadata?: string;
}

/** `edgesync apply ARGS` as a process against the emulator, with pipes (no TTY). */
export function spawnCli(emulator: RunningEmulator, args: readonly string[]): ChildProcess {
  return spawn(process.execPath, [CLI, 'apply', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      EDGE_API_URL: emulator.url,
      EDGE_API_KEY: emulator.apiKey,
      OIDC_CLIENT_SECRET: 'x',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** What the process wrote and how it ended; `output()` reads what it has written so far. */
export function finished(child: ChildProcess): Promise<CliRun> & { output(): CliRun } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const done = new Promise<CliRun>((resolveRun) => {
    child.on('close', (code, signal) => resolveRun({ code, signal, stdout, stderr }));
  });
  return Object.assign(done, { output: (): CliRun => ({ code: null, signal: null, stdout, stderr }) });
}

export function runCli(emulator: RunningEmulator, args: readonly string[]): Promise<CliRun> {
  const child = spawnCli(emulator, args);
  child.stdin?.end();
  return finished(child);
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
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end();
  return finished(child);
}
