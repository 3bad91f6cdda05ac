import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { type CliRun, runEdgesyncProcess } from '../support/edgesync-cli.js';

/** The built CLI: the suite runs edgesync as users do (`npx tsc -p .` first). */
export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npx tsc -p ." before the reliability suite`);
}

export type { CliRun };

export interface CliOptions {
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Bound on the run, milliseconds; the process is killed after it (a hang is a failure). @default 60000 */
  readonly limitMs?: number;
  /** Extra node flags, e.g. a heap cap. */
  readonly nodeFlags?: readonly string[];
}

/** edgesync as a process with this process's environment, NO_COLOR and `env`, bounded by `limitMs`. */
export function runCli(args: readonly string[], options: CliOptions): Promise<CliRun> {
  return runEdgesyncProcess(args, {
    cwd: options.cwd,
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', ...options.env },
    limitMs: options.limitMs ?? 60_000,
    ...(options.nodeFlags === undefined ? {} : { nodeFlags: options.nodeFlags }),
  });
}

export interface EmulatorStatsBody {
  readonly total: number;
  readonly byRoute: Readonly<Record<string, number>>;
  readonly byStatus: Readonly<Record<string, number>>;
}

export async function statsOf(emulator: RunningEmulator): Promise<EmulatorStatsBody> {
  const response = await fetch(`${emulator.url}/_emulator/stats`, {
    headers: { Authorization: `Bearer ${emulator.apiKey}` },
  });
  return (await response.json()) as EmulatorStatsBody;
}

export function writesOf(stats: EmulatorStatsBody): number {
  return Object.entries(stats.byRoute)
    .filter(([route]) => !route.startsWith('GET '))
    .reduce((sum, [, count]) => sum + count, 0);
}

export interface LiveRuleRecord {
  readonly id: string;
  readonly cidr: string;
  readonly action: string;
  readonly metadata?: string;
  readonly ip_policy: { readonly id: string };
}

/** Every IP policy rule of the account, all pages, read out of band. */
export async function listAllRules(emulator: RunningEmulator): Promise<LiveRuleRecord[]> {
  const rules: LiveRuleRecord[] = [];
  let next: string | null = `${emulator.url}/ip_policy_rules?limit=100`;
  while (next !== null) {
    const response: Response = await fetchPageThroughFaults(emulator, next);
    const page = (await response.json()) as {
      ip_policy_rules: LiveRuleRecord[];
      next_page_uri: string | null;
    };
    rules.push(...page.ip_policy_rules);
    next = page.next_page_uri;
  }
  return rules;
}

/**
 * The checker reads through the same emulator, whose injected faults answer
 * 500/503 without doing anything: a read is safe to repeat, so it is, a
 * bounded number of times.
 */
async function fetchPageThroughFaults(emulator: RunningEmulator, url: string): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(url, {
      headers: { Authorization: `Bearer ${emulator.apiKey}`, 'Service-Version': '2' },
    });
    if (response.status === 200) return response;
    const injectedFault = response.status === 500 || response.status === 503;
    if (!injectedFault || attempt === 20) throw new Error(`list answered ${response.status}`);
    await response.arrayBuffer();
  }
}

/** The marker name of a rule, or null when it has none (an orphan nobody owns). */
export function markerNameOf(rule: LiveRuleRecord, owner: string): string | null {
  try {
    const parsed = JSON.parse(rule.metadata ?? '') as { edgesync?: { owner?: unknown; name?: unknown } };
    return parsed.edgesync?.owner === owner && typeof parsed.edgesync.name === 'string'
      ? parsed.edgesync.name
      : null;
  } catch {
    return null;
  }
}

export { seededRandom } from '../support/seeded-random.js';

/** A manifest of `count` deny/allow rules starting at `from`, one CIDR each. */
export function rulesManifest(policyId: string, from: number, count: number): string {
  const lines = ['version: 1', 'ip_policy_rules:'];
  for (let index = from; index < from + count; index += 1) {
    lines.push(
      `  rule-${index}:`,
      `    ip_policy_id: ${policyId}`,
      `    cidr: 10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}/32`,
      `    action: ${index % 3 === 0 ? 'deny' : 'allow'}`,
      `    description: rule ${index}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export const POLICY_ID = 'ipp_ReliabilityPolicy0000000001';
