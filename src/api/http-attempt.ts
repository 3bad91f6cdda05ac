import type { HttpMethod } from './edge-api.js';
import { classifyFetchFailure } from './fetch-failure.js';
import { NetworkError } from './network-error.js';
import { RequestAbortedError } from './request-aborted-error.js';

/** One attempt's result: a complete response, or why none came. */
export type AttemptOutcome =
  | { readonly type: 'response'; readonly status: number; readonly headers: Headers; readonly text: string }
  | { readonly type: 'network'; readonly error: NetworkError };

export interface HttpAttempt {
  readonly method: HttpMethod;
  readonly url: URL;
  /** The path as the caller named it, for errors. */
  readonly path: string;
  /** JSON text, or undefined for no body. */
  readonly body: string | undefined;
  /** Headers besides Content-Type (auth, version, user agent). */
  readonly headers: Readonly<Record<string, string>>;
  /** Headers and body must be complete within this many milliseconds. */
  readonly timeoutMs: number;
  /** How a timeout is described: `within 30 s, retries included`. */
  readonly timeoutText: string;
  /** Scheme, host and port, for messages. */
  readonly origin: string;
  /** Removes secrets from anything that goes into an error. */
  readonly redact: (text: string) => string;
}

/**
 * Sends one HTTP request and reads its whole body. A network failure or the
 * timeout is an outcome, not a rejection, so the retry loop can weigh it;
 * only the caller's signal rejects (RequestAbortedError).
 */
export async function sendAttempt(
  attempt: HttpAttempt,
  signal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const { method, path, body, timeoutMs } = attempt;
  const controller = new AbortController();
  const timeout = new Error('request timed out');
  const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const headers =
    body === undefined ? attempt.headers : { ...attempt.headers, 'Content-Type': 'application/json' };
  try {
    // `redirect: manual`: a redirect is an answer to report, not a reason to
    // send the key somewhere else.
    const response = await fetch(attempt.url, {
      method,
      headers,
      signal: controller.signal,
      redirect: 'manual',
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    return { type: 'response', status: response.status, headers: response.headers, text };
  } catch (error) {
    if (signal?.aborted) {
      throw new RequestAbortedError(
        { method, path, mayHaveApplied: method !== 'GET' },
        { cause: signal.reason },
      );
    }
    const classified =
      controller.signal.aborted && controller.signal.reason === timeout
        ? { failure: 'timeout' as const, detail: attempt.timeoutText }
        : classifyFetchFailure(error);
    return {
      type: 'network',
      error: new NetworkError({
        method,
        path,
        origin: attempt.origin,
        failure: classified.failure,
        detail: attempt.redact(classified.detail),
      }),
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
