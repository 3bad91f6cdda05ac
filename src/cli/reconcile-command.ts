import { resolve } from 'node:path';
import { exposureWarning } from '../credential-file.js';
import { EdgesyncError } from '../errors.js';
import { READY_RESULTS } from '../watch/daemon-status.js';
import { readReconcileToken } from '../watch/reconcile-endpoint.js';
import type { CommandContext, CommandOutcome } from './command-context.js';
import { daemonCall as call, daemonJson } from './daemon-request.js';
import { parseDuration } from './duration-option.js';
import type { ReconcileFlags } from './reconcile-flags.js';
import { parseDaemonUrl } from './status-read.js';
import { statusTokenHeader } from './status-token-header.js';

/** How often `--wait` reads the daemon's `/status`, milliseconds. */
const POLL_MS = 500;

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
  const readTimeoutMs = parseDuration('--read-timeout', flags.readTimeout);
  if (flags.reconcileTokenFile === undefined) {
    throw new EdgesyncError(
      'config_missing',
      'no token: set EDGESYNC_RECONCILE_TOKEN_FILE (or --reconcile-token-file) to the file the daemon was started with',
    );
  }
  const { token, exposure } = await readReconcileToken(resolve(ctx.cwd, flags.reconcileTokenFile));
  if (exposure !== undefined) {
    ctx.stderr.write(
      `warning: ${exposureWarning(flags.reconcileTokenFile, '--reconcile-token-file', exposure)}\n`,
    );
  }
  // Read before asking: a status token that cannot be used must not leave a reconcile nobody follows.
  const auth = flags.wait ? { ...(await statusTokenHeader(flags.statusTokenFile, ctx)) } : {};
  const response = await call(
    base,
    { method: 'POST', path: '/reconcile', headers: { Authorization: `Bearer ${token}` } },
    ctx.shutdown,
    readTimeoutMs,
  );
  const answer = daemonJson(response) as {
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
  const ui = ctx.jsonUi;
  const requested = `full re-read requested from ${base.origin} (${String(answer.state)}, ticket ${ticket})`;
  if (ui === undefined) ctx.stdout.write(`${requested}\n`);
  else {
    ui.emit('reconcile_requested', requested, { daemon: base.origin, ticket, state: String(answer.state) });
    ui.summarize(requested, { outcome: 'requested', ticket });
  }
  if (!flags.wait) return 'ok';

  const deadline = performance.now() + waitTimeoutMs;
  let saidPages = -1;
  for (;;) {
    // A read never outlasts the wait: a daemon that trickles its answer cannot stretch --wait-timeout.
    const leftMs = Math.max(1, Math.min(readTimeoutMs, deadline - performance.now()));
    const status = daemonJson(
      await call(base, { method: 'GET', path: '/status', headers: auth }, ctx.shutdown, leftMs).catch(
        (error: unknown) => {
          if ((error as { code?: unknown }).code !== 'network_error' || leftMs === readTimeoutMs) throw error;
          throw waitTimeout(flags.waitTimeout, error);
        },
      ),
    ) as ForcedStatusJson | null;
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
      const succeeded = (READY_RESULTS as readonly string[]).includes(result);
      const finished = `reconcile finished: ${result}${read}`;
      ui?.emit(
        'reconcile_complete',
        finished,
        { ticket, result, pages_read: last?.pages_read ?? 0, requests: last?.requests ?? 0 },
        succeeded ? 'info' : 'error',
      );
      if (!succeeded) {
        throw new EdgesyncError(
          'reconcile_failed',
          `the forced reconcile ended ${result}${read}; see the daemon's /status and logs`,
        );
      }
      if (ui === undefined) ctx.stdout.write(`${finished}\n`);
      else ui.summarize(finished, { outcome: 'finished', ticket, result });
      return 'ok';
    }
    const pages = forced.in_progress?.pages_read ?? 0;
    if (pages !== saidPages && forced.in_progress !== null) {
      saidPages = pages;
      ctx.stderr.write(`reading the account: ${pages} page(s)\n`);
      ui?.emit('reconcile_progress', `reading the account: ${pages} page(s)`, { pages_read: pages });
    }
    if (performance.now() + POLL_MS > deadline) throw waitTimeout(flags.waitTimeout);
    await sleep(POLL_MS, ctx.shutdown);
  }
}

function waitTimeout(waitLabel: string, cause?: unknown): EdgesyncError {
  return new EdgesyncError(
    'wait_timeout',
    `the forced reconcile had not finished after --wait-timeout ${waitLabel}; it goes on in the daemon`,
    { cause },
  );
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
