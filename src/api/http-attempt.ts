import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import type { HttpMethod } from './edge-api.js';
import { NetworkError, type NetworkFailure } from './network-error.js';
import { classifyNetworkFailure } from './network-failure.js';
import { RequestAbortedError } from './request-aborted-error.js';

/** One attempt's result: a complete response, or why none came. */
export type AttemptOutcome =
  | {
      readonly type: 'response';
      readonly status: number;
      /** The `Retry-After` header, null when absent. */
      readonly retryAfter: string | null;
      readonly text: string;
    }
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
 * Connections are kept open between requests (a live read is hundreds of
 * GETs in a row), and closed after 4 s idle or a second before the idle
 * timeout the service announces in `Keep-Alive`, so that a request is not
 * sent on a connection the service is closing.
 */
const AGENT_OPTIONS = { keepAlive: true, timeout: 4_000, noDelay: true } as const;
const httpAgent = new HttpAgent(AGENT_OPTIONS);
const httpsAgent = new HttpsAgent(AGENT_OPTIONS);

/** Connecting longer than this fails the attempt as `connect_timeout`: nothing was sent. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Sends one HTTP request and reads its whole body. A network failure or the
 * timeout is an outcome, not a rejection, so the retry loop can weigh it;
 * only the caller's signal rejects (RequestAbortedError).
 *
 * node:http rather than global `fetch`: fetch's streams and its own module
 * cost about 1 ms of CPU per request and 150 ms to start, which was most of
 * reading 100 pages (issue 18). Redirects are answers, not followed: one
 * must not send the key somewhere else. Compressed bodies are accepted and
 * decoded as fetch did.
 */
export function sendAttempt(attempt: HttpAttempt, signal: AbortSignal | undefined): Promise<AttemptOutcome> {
  const { method, path, body, url } = attempt;
  const secure = url.protocol === 'https:';
  return new Promise<AttemptOutcome>((resolve, reject) => {
    let settled = false;
    let request: ClientRequest | undefined;
    let connectTimer: NodeJS.Timeout | undefined;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      clearTimeout(connectTimer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const failWith = (failure: NetworkFailure, detail: string): void => {
      if (!settle()) return;
      request?.destroy();
      const error = new NetworkError({
        method,
        path,
        origin: attempt.origin,
        failure,
        detail: attempt.redact(detail),
      });
      resolve({ type: 'network', error });
    };
    const onAbort = (): void => {
      if (!settle()) return;
      request?.destroy();
      reject(
        new RequestAbortedError(
          { method, path, mayHaveApplied: method !== 'GET' },
          { cause: signal?.reason },
        ),
      );
    };
    const onError = (error: unknown): void => {
      if (signal?.aborted) {
        onAbort();
        return;
      }
      const classified = classifyNetworkFailure(error);
      failWith(classified.failure, classified.detail);
    };
    const onResponse = (response: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', onError);
      response.on('end', () => {
        let text: string;
        try {
          text = decodeBody(Buffer.concat(chunks), response.headers['content-encoding']);
        } catch (error) {
          failWith('other', `response body could not be decoded: ${messageOf(error)}`);
          return;
        }
        if (!settle()) return;
        const retryAfter = response.headers['retry-after'];
        resolve({ type: 'response', status: response.statusCode ?? 0, retryAfter: retryAfter ?? null, text });
      });
      response.on('close', () => {
        if (!response.complete) onError(new Error('aborted'));
      });
    };

    const timer = setTimeout(() => failWith('timeout', attempt.timeoutText), attempt.timeoutMs);
    try {
      request = (secure ? httpsRequest : httpRequest)(url, {
        method,
        headers: requestHeaders(attempt.headers, body, secure),
        agent: secure ? httpsAgent : httpAgent,
      });
    } catch (error) {
      // A header node:http refuses to send: an outcome like any other failure, as fetch reported it.
      onError(error);
      return;
    }
    request.on('socket', (socket: Socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () => failWith('connect_timeout', `not connected within ${CONNECT_TIMEOUT_MS / 1000} s`),
        CONNECT_TIMEOUT_MS,
      );
      socket.once('connect', () => clearTimeout(connectTimer));
    });
    request.on('response', onResponse);
    request.on('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(body);
  });
}

function requestHeaders(
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
  secure: boolean,
): Record<string, string> {
  const acceptEncoding = secure ? 'br, gzip, deflate' : 'gzip, deflate';
  if (body === undefined) return { ...headers, 'Accept-Encoding': acceptEncoding };
  return {
    ...headers,
    'Accept-Encoding': acceptEncoding,
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
  };
}

/** A compressed stream that ends without its trailer decodes as far as it goes, as fetch decoded it. */
const ZLIB_OPTIONS = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };

/**
 * The body as text: its content codings undone, last applied first (an
 * unknown one leaves the bytes as they are), then UTF-8 without a byte order
 * mark, invalid sequences replaced, as `Response.text()` decodes.
 */
function decodeBody(bytes: Buffer, contentEncoding: string | undefined): string {
  let decoded = bytes;
  const codings = contentEncoding === undefined ? [] : contentEncoding.toLowerCase().split(',').reverse();
  for (const coding of codings) {
    const name = coding.trim();
    if (name === 'gzip' || name === 'x-gzip') decoded = gunzipSync(decoded, ZLIB_OPTIONS);
    else if (name === 'deflate') decoded = inflateDeflate(decoded);
    else if (name === 'br') decoded = brotliDecompressSync(decoded);
    else break;
  }
  const text = decoded.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `deflate` is meant to be zlib-wrapped, but some servers send it raw: the first byte tells them apart. */
function inflateDeflate(bytes: Buffer): Buffer {
  const zlibWrapped = ((bytes[0] ?? 0) & 0x0f) === 0x08;
  return zlibWrapped ? inflateSync(bytes, ZLIB_OPTIONS) : inflateRawSync(bytes, ZLIB_OPTIONS);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
