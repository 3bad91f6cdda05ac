import type { NetworkFailure } from './network-error.js';

const FAILURE_BY_CODE: Readonly<Record<string, NetworkFailure>> = {
  ECONNREFUSED: 'connection_refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  UND_ERR_SOCKET: 'socket_closed',
  UND_ERR_CLOSED: 'socket_closed',
  ETIMEDOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
};

/**
 * Names the network failure behind an error of global `fetch` (undici): it
 * rejects with `TypeError('fetch failed')` or `TypeError('terminated')` and
 * puts the socket error, with its `code`, somewhere down the `cause` chain
 * (or inside an AggregateError when several addresses were tried).
 */
export function classifyFetchFailure(error: unknown): { failure: NetworkFailure; detail: string } {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  const messages: string[] = [];
  while (queue.length > 0) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const { code, message, cause, errors } = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof message === 'string' && message !== '') messages.push(message);
    const failure = typeof code === 'string' ? FAILURE_BY_CODE[code] : undefined;
    if (failure) return { failure, detail: typeof code === 'string' ? code : failure };
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  if (messages.some((message) => /other side closed|socket hang up|terminated/i.test(message))) {
    return { failure: 'socket_closed', detail: messages.join(': ') };
  }
  return { failure: 'other', detail: messages.join(': ') || 'unknown network failure' };
}
