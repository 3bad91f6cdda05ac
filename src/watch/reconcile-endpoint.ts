import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { readTokenFile, type TokenFile } from '../credential-file.js';
import { bearerToken, sameToken, sendJson as send } from './bearer-token.js';
import type { ForcedRequestState } from './reconcile-loop.js';

/** Shorter than this, a token is too easy to guess. */
export const MIN_RECONCILE_TOKEN_LENGTH = 16;

export interface ReconcileEndpointOptions {
  /** The file holding the token (read again on each request, so a rotated secret takes effect). */
  readonly tokenFile: string;
  /** Asks for a forced reconcile; returns the request's ticket and what the loop did with it. */
  readonly request: () => { readonly ticket: number; readonly state: ForcedRequestState };
  readonly logger: Logger;
}

/**
 * The token of `--reconcile-token-file`, and who else can read its file; or
 * an error naming the file (never the token): an empty or short token would
 * let anyone who can reach the listener force full re-reads that spend the
 * request budget.
 */
export function readReconcileToken(file: string): Promise<TokenFile> {
  return readTokenFile(file, '--reconcile-token-file', MIN_RECONCILE_TOKEN_LENGTH);
}

/**
 * `POST /reconcile`: a forced reconcile for whoever holds the token, in an
 * `Authorization: Bearer` header (never a query string, which proxies log).
 * A request with an `Origin` header comes from a browser page and is refused,
 * and no `Access-Control-Allow-*` header is ever sent, so no page can ask for
 * one on a person's behalf. Answers 202 with the ticket `edgesync reconcile
 * --wait` follows in `/status`.
 */
export async function handleReconcileRequest(
  req: IncomingMessage,
  res: ServerResponse,
  options: ReconcileEndpointOptions | undefined,
): Promise<void> {
  const log = options?.logger.child({ component: 'reconcile-endpoint' });
  // The body, if any, is never read: drop it so that the connection can be reused.
  req.resume();
  if (options === undefined) {
    send(res, 404, { error: 'POST /reconcile is off: start the daemon with --reconcile-token-file' });
    return;
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    send(res, 405, { error: 'method not allowed: POST only' });
    return;
  }
  if (req.headers.origin !== undefined) {
    log?.warn({ reason: 'origin' }, 'reconcile request refused');
    send(res, 403, { error: 'refused: requests from a browser origin are not accepted' });
    return;
  }
  const given = bearerToken(req.headers.authorization);
  let expected: string;
  try {
    expected = (await readReconcileToken(options.tokenFile)).token;
  } catch (err) {
    log?.error({ err }, 'reconcile request refused: the token file cannot be used');
    send(res, 503, { error: 'the daemon cannot read its reconcile token' });
    return;
  }
  if (given === null || !sameToken(given, expected)) {
    log?.warn({ reason: given === null ? 'no_token' : 'wrong_token' }, 'reconcile request refused');
    res.setHeader('WWW-Authenticate', 'Bearer');
    send(res, 401, { error: 'refused: a valid token in "Authorization: Bearer …" is required' });
    return;
  }
  const { ticket, state } = options.request();
  send(res, 202, { ticket, state });
}
