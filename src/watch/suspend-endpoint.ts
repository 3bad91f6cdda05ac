import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { readTokenFile, type TokenFile } from '../credential-file.js';
import { bearerToken, sameToken, sendJson } from './bearer-token.js';
import { MIN_RECONCILE_TOKEN_LENGTH, readReconcileToken } from './reconcile-endpoint.js';
import type { SuspensionChange } from './suspension.js';

/** What `POST /suspend` and `POST /resume` do. */
export const SUSPEND_ACTIONS = ['suspend', 'resume'] as const;
export type SuspendAction = (typeof SUSPEND_ACTIONS)[number];

export interface SuspendEndpointOptions {
  /** --suspend-token-file (read again on each request, so a rotated secret takes effect). */
  readonly tokenFile: string;
  /** --reconcile-token-file, when set: its token is refused here, by name. */
  readonly reconcileTokenFile?: string;
  /** Suspends or resumes the daemon; `from` is the caller's address, for the log and `/status`. */
  readonly act: (action: SuspendAction, from: string) => SuspensionChange;
  readonly logger: Logger;
}

/**
 * The token of `--suspend-token-file`, held to the reconcile token's length:
 * whoever holds it stops the daemon correcting drift.
 */
export function readSuspendToken(file: string): Promise<TokenFile> {
  return readTokenFile(file, '--suspend-token-file', MIN_RECONCILE_TOKEN_LENGTH);
}

/**
 * `POST /suspend` and `POST /resume`, for whoever holds the suspend token in
 * `Authorization: Bearer`, refused to browsers (any `Origin`) and never open
 * to CORS, as `POST /reconcile` is. The reconcile token alone is refused with
 * its reason: stopping correction is a stronger power than forcing a
 * re-read, so a token handed out for the one must not grant the other. Each
 * request that is let through is logged with the caller's address, changed
 * or not.
 */
export async function handleSuspendRequest(
  req: IncomingMessage,
  res: ServerResponse,
  action: SuspendAction,
  options: SuspendEndpointOptions | undefined,
): Promise<void> {
  const log = options?.logger.child({ component: 'suspend-endpoint' });
  // The body, if any, is never read: drop it so that the connection can be reused.
  req.resume();
  const from = callerOf(req);
  if (options === undefined) {
    sendJson(res, 404, { error: `POST /${action} is off: start the daemon with --suspend-token-file` });
    return;
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    sendJson(res, 405, { error: 'method not allowed: POST only' });
    return;
  }
  if (req.headers.origin !== undefined) {
    log?.warn({ action, from, reason: 'origin' }, `${action} request refused`);
    sendJson(res, 403, { error: 'refused: requests from a browser origin are not accepted' });
    return;
  }
  const given = bearerToken(req.headers.authorization);
  let expected: string;
  try {
    expected = (await readSuspendToken(options.tokenFile)).token;
  } catch (err) {
    log?.error({ err, action, from }, `${action} request refused: the token file cannot be used`);
    sendJson(res, 503, { error: 'the daemon cannot read its suspend token' });
    return;
  }
  if (given !== null && (await isReconcileToken(given, options.reconcileTokenFile))) {
    log?.warn({ action, from, reason: 'reconcile_token' }, `${action} request refused`);
    sendJson(res, 403, {
      error: `refused: that is the reconcile token; ${action} takes the token of --suspend-token-file, since stopping correction is a stronger power than forcing a re-read`,
    });
    return;
  }
  if (given === null || !sameToken(given, expected)) {
    log?.warn(
      { action, from, reason: given === null ? 'no_token' : 'wrong_token' },
      `${action} request refused`,
    );
    res.setHeader('WWW-Authenticate', 'Bearer');
    sendJson(res, 401, { error: 'refused: a valid token in "Authorization: Bearer …" is required' });
    return;
  }
  const { changed, status } = options.act(action, from);
  sendJson(res, 200, { ...status, changed });
}

/** Whether `given` is the reconcile token; false when there is none, or its file cannot be read now. */
async function isReconcileToken(given: string, file: string | undefined): Promise<boolean> {
  if (file === undefined) return false;
  try {
    return sameToken(given, (await readReconcileToken(file)).token);
  } catch {
    return false;
  }
}

/**
 * The caller's address as the socket sees it, with what a proxy in front
 * says (`X-Forwarded-For`, clipped: it is the caller's own word).
 */
function callerOf(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  const forwarded = req.headers['x-forwarded-for'];
  const said = Array.isArray(forwarded) ? forwarded.join(', ') : forwarded;
  return said === undefined || said === '' ? peer : `${peer} (forwarded for ${said.slice(0, 200)})`;
}
