import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { readTokenFile, type TokenFile } from '../credential-file.js';
import { bearerToken, sameToken } from './bearer-token.js';
import { MIN_RECONCILE_TOKEN_LENGTH } from './reconcile-endpoint.js';

/**
 * The paths `--status-token-file` protects: they show the names, IDs and
 * CIDRs the daemon manages. `/healthz`, `/readyz` and `/metrics` stay open,
 * for the kubelet and Prometheus, and say no name.
 */
export const STATUS_TOKEN_PATHS: ReadonlySet<string> = new Set(['/', '/status', '/inventory']);

export interface StatusTokenOptions {
  /** --status-token-file (read again on each request, so a rotated secret takes effect). */
  readonly tokenFile: string;
  readonly logger: Logger;
}

/** The token of `--status-token-file`, held to the reconcile token's length. */
export function readStatusToken(file: string): Promise<TokenFile> {
  return readTokenFile(file, '--status-token-file', MIN_RECONCILE_TOKEN_LENGTH);
}

/**
 * Whether a request for a protected path may be answered: it bears the
 * status token in `Authorization: Bearer`, compared in constant time.
 * Otherwise the answer is sent here: 401 with `WWW-Authenticate: Bearer`,
 * or 503 when the daemon cannot read its own token file.
 */
export async function statusTokenAllows(
  req: IncomingMessage,
  res: ServerResponse,
  options: StatusTokenOptions,
): Promise<boolean> {
  let expected: string;
  try {
    expected = (await readStatusToken(options.tokenFile)).token;
  } catch (err) {
    options.logger.error(
      { err, component: 'watch-server' },
      'status request refused: the token file cannot be used',
    );
    sendRefusal(res, 503, 'the daemon cannot read its status token\n');
    return false;
  }
  const given = bearerToken(req.headers.authorization);
  if (given !== null && sameToken(given, expected)) return true;
  res.setHeader('WWW-Authenticate', 'Bearer');
  sendRefusal(res, 401, 'refused: this daemon needs its status token in "Authorization: Bearer …"\n');
  return false;
}

function sendRefusal(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text);
}
