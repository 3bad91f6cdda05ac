import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { CONNECT_TIMEOUT_MS, readPeer } from '../peer/read-peer.js';
import type { HttpMethod } from './edge-api.js';
import { NetworkError } from './network-error.js';
import { RequestAbortedError } from './request-aborted-error.js';

/** One attempt's result: a complete response, a response whose body was over the bound, or why none came. */
export type AttemptOutcome =
  | {
      readonly type: 'response';
      readonly status: number;
      /** The `Retry-After` header, null when absent. */
      readonly retryAfter: string | null;
      readonly text: string;
    }
  | {
      readonly type: 'too_large';
      readonly status: number;
      /** The body's bytes as sent passed the bound, or only once its content coding was undone. */
      readonly decoded: boolean;
    }
  | { readonly type: 'network'; readonly error: NetworkError };

/**
 * The most bytes of one response body, as sent and once its content coding
 * is undone. A page holds at most 100 objects; the largest the spec bounds
 * is a CA: a 64 KB PEM, a 255-byte description and 4096 bytes of metadata,
 * every byte written in JSON's longest escape (`\u0001`, 6 bytes), is about
 * 93 KB, so 9.3 MB a page. 32 MiB is 3.6 times that, room for what the spec
 * leaves unbounded (an HTTPS edge's routes). A 200 MB answer took the CLI
 * to 893 MB and a gzip body inflating to 1.5 GB to 3.17 GB.
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

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
  /** Bound of the body, as sent and decoded, in bytes. @default MAX_RESPONSE_BYTES */
  readonly maxBodyBytes?: number;
}

/**
 * Connections are kept open between requests (a live read is hundreds of
 * GETs in a row), and closed after 4 s idle or a second before the idle
 * timeout the service announces in `Keep-Alive`, so that a request is not
 * sent on a connection the service is closing.
 */
const AGENT_OPTIONS = { keepAlive: true, timeout: 4_000, noDelay: true } as const;
const httpAgent = new HttpAgent(AGENT_OPTIONS);
const httpsAgent = new HttpsAgent(AGENT_OPTIONS);

/**
 * Sends one HTTP request and reads its whole body, through the one bounded
 * read of a peer (`readPeer`: the deadline covers the body, a trickle
 * included). A network failure or the timeout is an outcome, not a
 * rejection, so the retry loop can weigh it; only the caller's signal
 * rejects (RequestAbortedError).
 *
 * node:http rather than global `fetch`: fetch's streams and its own module
 * cost about 1 ms of CPU per request and 150 ms to start, which was most of
 * reading 100 pages (docs/performance.md). Redirects are answers, not followed: one
 * must not send the key somewhere else. Compressed bodies are accepted and
 * decoded as fetch did.
 */
export async function sendAttempt(
  attempt: HttpAttempt,
  signal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const { method, path, body, url } = attempt;
  const secure = url.protocol === 'https:';
  const answer = await readPeer(
    {
      method,
      url,
      headers:
        body === undefined ? attempt.headers : { ...attempt.headers, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body }),
      deadlineMs: attempt.timeoutMs,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      maxBodyBytes: attempt.maxBodyBytes ?? MAX_RESPONSE_BYTES,
      decode: true,
      agent: secure ? httpsAgent : httpAgent,
    },
    signal,
  );
  switch (answer.type) {
    case 'response': {
      const retryAfter = answer.headers['retry-after'];
      return { type: 'response', status: answer.status, retryAfter: retryAfter ?? null, text: answer.text };
    }
    case 'too_large':
      return { type: 'too_large', status: answer.status, decoded: answer.decoded };
    case 'failed': {
      const detail = answer.failure === 'timeout' ? attempt.timeoutText : answer.detail;
      const error = new NetworkError({
        method,
        path,
        origin: attempt.origin,
        failure: answer.failure,
        detail: attempt.redact(detail),
      });
      return { type: 'network', error };
    }
    case 'aborted':
      throw new RequestAbortedError(
        { method, path, mayHaveApplied: method !== 'GET' },
        { cause: signal?.reason },
      );
  }
}
