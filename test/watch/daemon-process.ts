import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { DaemonStatusJson } from '../../src/watch/daemon-status.js';
import { BUILT_CLI } from '../support/built-cli.js';

/** The built CLI: these tests run the daemon as users do (`npx tsc -p .` first). */
export const CLI = BUILT_CLI;

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npx tsc -p ." before these tests`);
}

/** Resolves once `check` returns a value other than undefined, polling; throws after `limitMs` (a bound, never asserted). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  limitMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error('condition not met in time', { cause: lastError });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface DaemonProcess {
  /** The daemon's HTTP base URL, read from stdout's first line. */
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `edgesync watch` against `emulator`; extra arguments follow the paths. */
export async function startDaemon(
  emulator: RunningEmulator,
  args: readonly string[],
  cwd: string,
  /** Variables to set, or with undefined to unset (NO_COLOR is set by default). */
  environment: Readonly<Record<string, string | undefined>> = {},
): Promise<DaemonProcess> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    EDGE_API_KEY: emulator.apiKey,
    NO_COLOR: '1',
    ...environment,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(
    process.execPath,
    [CLI, 'watch', ...args, '--api-url', emulator.url, '--listen', '127.0.0.1:0', '--debounce', '200ms'],
    // The key goes through the environment, as the docs recommend.
    {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`daemon exited with ${code} before listening:\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A GET or write on the emulator, as a person with the API key would do out of band. */
export async function callService(
  emulator: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${emulator.apiKey}`,
      'Service-Version': '2',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

export interface LiveRule {
  readonly id: string;
  readonly cidr: string;
  readonly action: string;
  readonly description?: string;
  readonly metadata?: string;
}

export async function listRules(emulator: RunningEmulator): Promise<LiveRule[]> {
  const { body } = await callService(emulator, 'GET', '/ip_policy_rules?limit=100');
  return (body as { ip_policy_rules: LiveRule[] }).ip_policy_rules;
}

/** A rule of `rulesManifest`: the fields the daemon tests vary. */
export interface RuleSpec {
  readonly cidr: string;
  readonly action?: string;
  readonly description?: string;
}

/** A manifest of IP policy rules in one policy, keyed by entry name. */
export function rulesManifest(policyId: string, rules: Record<string, RuleSpec>): string {
  const entries = Object.entries(rules).map(
    ([name, rule]) =>
      `  ${name}:\n    ip_policy_id: ${policyId}\n    cidr: ${rule.cidr}\n    action: ${rule.action ?? 'allow'}\n` +
      (rule.description ? `    description: ${rule.description}\n` : ''),
  );
  return `version: 1\nip_policy_rules:\n${entries.join('')}`;
}

/** The daemon's `/status`. */
export async function getStatus(daemon: DaemonProcess): Promise<DaemonStatusJson> {
  return (await (await fetch(`${daemon.url}/status`)).json()) as DaemonStatusJson;
}
