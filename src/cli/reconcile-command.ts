import { EdgesyncError } from '../errors.js';
import { READY_RESULTS } from '../watch/daemon-status.js';
import { readReconcileToken } from '../watch/reconcile-endpoint.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { parseDuration } from './duration-option.js';
import type { ReconcileFlags } from './reconcile-flags.js';
import { boundedText, parseDaemonUrl } from './status-read.js';

/** How often `--wait` reads the daemon's `/status`, milliseconds. */
const POLL_MS = 500;
/** One request to the daemon may take this long, milliseconds. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The part of `/status` this command reads. */
interface ForcedStatusJson {
  readonly forced_reconcile?: {
    readonly requested: number;
    readonly completed: number;
    readonly in_progress: { readonly pages_read: number; readonly requests: number } | null;
    readonly last: {
      readonly trigger: string;
      readonly pages_read: number;
      readonly requests: number;
      readonly result: string | null;
    } | null;
  };
}

export async function runReconcile(flags: ReconcileFlags, ctx: CommandContext): Promise<CommandOutcome> {
  const base = parseDaemonUrl(flags.daemonUrl);
  const waitTimeoutMs = parseDuration('--wait-timeout', flags.waitTimeout);
  if (flags.reconcileTokenFile === undefined) {
    throw new EdgesyncError(
      'config_missing',
      'no token: set EDGESYNC_RECONCILE_TOKEN_FILE (or --reconcile-token-file) to the file the daemon was started with',
    );
  }
  const token = await readReconcileToken(flags.reconcileTokenFile);
  const response = await call(base, '/reconcile', ctx.shutdown, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
  });
  const answer = (await daemonJson(response, base)) as {
    readonly ticket?: unknown;
    readonly state?: unknown;
    readonly error?: unknown;
  } | null;
  if (answer === null || typeof answer !== 'object') {
    throw new EdgesyncError(
      'daemon_request_failed',
      `the daemon at ${base.origin} answered HTTP ${response.status} with no JSON object`,
    );
  }
  if (response.status !== 202 || typeof answer.ticket !== 'number') {
    const why = typeof answer.error === 'string' ? answer.error : `HTTP ${response.status}`;
    throw new EdgesyncError(
      'daemon_request_failed',
      `the daemon at ${base.origin} did not accept the request: ${why}`,
    );
  }
  const ticket = answer.ticket;
  ctx.stdout.write(
    `full re-read requested from ${base.origin} (${String(answer.state)}, ticket ${ticket})\n`,
  );
  if (!flags.wait) return 'ok';

  const deadline = Date.now() + waitTimeoutMs;
  let saidPages = -1;
  for (;;) {
    const status = (await daemonJson(
      await call(base, '/status', ctx.shutdown),
      base,
    )) as ForcedStatusJson | null;
    const forced = status?.forced_reconcile;
    if (forced === undefined || forced === null || typeof forced.completed !== 'number') {
      throw new EdgesyncError(
        'daemon_request_failed',
        `the daemon at ${base.origin} does not report forced reconciles`,
      );
    }
    if (forced.completed >= ticket) {
      const last = forced.last;
      const result = last?.result ?? 'unknown';
      const read =
        last === null ? '' : ` after reading ${last.pages_read} page(s) in ${last.requests} request(s)`;
      if (!(READY_RESULTS as readonly string[]).includes(result)) {
        throw new EdgesyncError(
          'reconcile_failed',
          `the forced reconcile ended ${result}${read}; see the daemon's /status and logs`,
        );
      }
      ctx.stdout.write(`reconcile finished: ${result}${read}\n`);
      return 'ok';
    }
    const pages = forced.in_progress?.pages_read ?? 0;
    if (pages !== saidPages && forced.in_progress !== null) {
      saidPages = pages;
      ctx.stderr.write(`reading the account: ${pages} page(s)\n`);
    }
    if (Date.now() > deadline) {
      throw new EdgesyncError(
        'wait_timeout',
        `the forced reconcile had not finished after --wait-timeout ${flags.waitTimeout}; it goes on in the daemon`,
      );
    }
    await sleep(POLL_MS, ctx.shutdown);
  }
}

async function call(
  base: URL,
  path: string,
  shutdown: AbortSignal,
  init: RequestInit = {},
): Promise<Response> {
  const url = new URL(path, base);
  try {
    return await fetch(url, {
      ...init,
      signal: AbortSignal.any([shutdown, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
  } catch (cause) {
    const code = (cause as { cause?: { code?: string } }).cause?.code ?? (cause as Error).name;
    throw new EdgesyncError(
      'daemon_request_failed',
      `cannot reach the daemon at ${base.origin} (${code}): is --daemon-url right and the daemon running?`,
      {
        cause,
      },
    );
  }
}

/**
 * A daemon's answer as JSON: the URL is the user's, so whatever answers there
 * is read within the status's bound and parsed, never cast unread. A body that
 * is not JSON is null (the callers say what they missed).
 */
async function daemonJson(response: Response, base: URL): Promise<unknown> {
  const text = await boundedText(response, base.origin);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new EdgesyncError('interrupted', 'interrupted while waiting for the forced reconcile'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
