import { resolve } from 'node:path';
import { exposureWarning } from '../credential-file.js';
import { EdgesyncError } from '../errors.js';
import { visibleText } from '../visible-text.js';
import { readSuspendToken } from '../watch/suspend-endpoint.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { daemonCall, daemonJson } from './daemon-request.js';
import { parseDuration } from './duration-option.js';
import { parseDaemonUrl } from './status-read.js';
import type { SuspendFlags } from './suspend-flags.js';

/** `edgesync suspend`: `POST /suspend` with the suspend token. */
export function runSuspend(flags: SuspendFlags, ctx: CommandContext): Promise<CommandOutcome> {
  return suspendOrResume('suspend', flags, ctx);
}

/** `edgesync resume`: `POST /resume` with the suspend token. */
export function runResume(flags: SuspendFlags, ctx: CommandContext): Promise<CommandOutcome> {
  return suspendOrResume('resume', flags, ctx);
}

/** What the daemon answers once it let the request through (suspend-endpoint.ts). */
interface SuspensionAnswer {
  readonly suspended: boolean;
  readonly changed: boolean;
  readonly since: string | null;
  readonly by: string | null;
}

async function suspendOrResume(
  action: 'suspend' | 'resume',
  flags: SuspendFlags,
  ctx: CommandContext,
): Promise<CommandOutcome> {
  const base = parseDaemonUrl(flags.daemonUrl);
  const readTimeoutMs = parseDuration('--read-timeout', flags.readTimeout);
  if (flags.suspendTokenFile === undefined) {
    throw new EdgesyncError(
      'config_missing',
      'no token: set EDGESYNC_SUSPEND_TOKEN_FILE (or --suspend-token-file) to the file the daemon was started with',
    );
  }
  const { token, exposure } = await readSuspendToken(resolve(ctx.cwd, flags.suspendTokenFile));
  if (exposure !== undefined) {
    ctx.stderr.write(
      `warning: ${exposureWarning(flags.suspendTokenFile, '--suspend-token-file', exposure)}\n`,
    );
  }
  const response = await daemonCall(
    base,
    { method: 'POST', path: `/${action}`, headers: { Authorization: `Bearer ${token}` } },
    ctx.shutdown,
    readTimeoutMs,
  );
  const answer = suspensionAnswer(daemonJson(response));
  if (response.status !== 200 || answer === null) {
    const said = daemonJson(response) as { readonly error?: unknown } | null;
    const why = typeof said?.error === 'string' ? visibleText(said.error) : `HTTP ${response.status}`;
    throw new EdgesyncError(
      'daemon_request_failed',
      `the daemon at ${base.origin} did not ${action}: ${why}`,
    );
  }
  const line = describe(action, base.origin, answer);
  if (flags.format === 'json') {
    ctx.stdout.write(
      `${JSON.stringify({ daemon: base.origin, action, suspended: answer.suspended, changed: answer.changed, since: answer.since, by: answer.by })}\n`,
    );
  } else ctx.stdout.write(`${line}\n`);
  return 'ok';
}

/** The answer's keys, checked: the URL is the user's, and anything may answer there. */
function suspensionAnswer(body: unknown): SuspensionAnswer | null {
  if (typeof body !== 'object' || body === null) return null;
  const { suspended, changed, since, by } = body as Record<string, unknown>;
  if (typeof suspended !== 'boolean' || typeof changed !== 'boolean') return null;
  const text = (value: unknown): string | null => (typeof value === 'string' ? visibleText(value) : null);
  return { suspended, changed, since: text(since), by: text(by) };
}

function describe(action: 'suspend' | 'resume', daemon: string, answer: SuspensionAnswer): string {
  const since =
    answer.since === null ? '' : ` since ${answer.since}${answer.by === null ? '' : ` by ${answer.by}`}`;
  if (action === 'suspend') {
    return answer.changed
      ? `suspended ${daemon}: it reads and reports drift, and sends no write until edgesync resume`
      : `${daemon} was already suspended${since}`;
  }
  return answer.changed
    ? `resumed ${daemon}: it reconciles now and applies what waited`
    : `${daemon} was not suspended: it applies as usual`;
}
