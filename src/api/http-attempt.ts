import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import {
  brotliDecompressSync,
  constants,
  gunzipSync,
  inflateRawSync,
  inflateSync,
  type ZlibOptions,
} from 'node:zlib';
import type { HttpMethod } from './edge-api.js';
import { NetworkError, type NetworkFailure } from './network-error.js';
import { classifyNetworkFailure } from './network-failure.js';
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

/** Connecting longer than this fails the attempt as `connect_timeout`: nothing was sent. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Sends one HTTP request and reads its whole body. A network failure or the
 * timeout is an outcome, not a rejection, so the retry loop can weigh it;
 * only the caller's signal rejects (RequestAbortedError).
 *
 * node:http rather than global `fetch`: fetch's streams and its own module
 * cost about 1 ms of CPU per request and 150 ms to start, which was most of
 * reading 100 pages (docs/performance.md). Redirects are answers, not followed: one
 * must not send the key somewhere else. Compressed bodies are accepted and
 * decoded as fetch did.
 */
export function sendAttempt(attempt: HttpAttempt, signal: AbortSignal | undefined): Promise<AttemptOutcome> {
  const { method, path, body, url } = attempt;
  const secure = url.protocol === 'https:';
  const maxBodyBytes = attempt.maxBodyBytes ?? MAX_RESPONSE_BYTES;
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
    const tooLarge = (response: IncomingMessage, decoded: boolean): void => {
      if (!settle()) return;
      // The rest of the body is not read: the connection goes, not back to the pool.
      request?.destroy();
      resolve({ type: 'too_large', status: response.statusCode ?? 0, decoded });
    };
    const onResponse = (response: IncomingMessage): void => {
      const declared = Number(response.headers['content-length']);
      if (declared > maxBodyBytes) {
        tooLarge(response, false);
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBodyBytes) tooLarge(response, false);
        else chunks.push(chunk);
      });
      response.on('error', onError);
      response.on('end', () => {
        if (settled) return;
        let text: string;
        try {
          text = decodeBody(Buffer.concat(chunks), response.headers['content-encoding'], maxBodyBytes);
        } catch (error) {
          if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') tooLarge(response, true);
          else failWith('other', `response body could not be decoded: ${messageOf(error)}`);
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
 * mark, invalid sequences replaced, as `Response.text()` decodes. Each
 * decoding stops, throwing ERR_BUFFER_TOO_LARGE, as soon as its output
 * passes `maxBytes`: a small gzip body can inflate to gigabytes.
 */
function decodeBody(bytes: Buffer, contentEncoding: string | undefined, maxBytes: number): string {
  let decoded = bytes;
  const codings = contentEncoding === undefined ? [] : contentEncoding.toLowerCase().split(',').reverse();
  const options = { ...ZLIB_OPTIONS, maxOutputLength: maxBytes };
  for (const coding of codings) {
    const name = coding.trim();
    if (name === 'gzip' || name === 'x-gzip') decoded = gunzipSync(decoded, options);
    else if (name === 'deflate') decoded = inflateDeflate(decoded, options);
    else if (name === 'br') decoded = brotliDecompressSync(decoded, { maxOutputLength: maxBytes });
    else break;
  }
  const text = decoded.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `deflate` is meant to be zlib-wrapped, but some servers send it raw: the first byte tells them apart. */
function inflateDeflate(bytes: Buffer, options: ZlibOptions): Buffer {
  const zlibWrapped = ((bytes[0] ?? 0) & 0x0f) === 0x08;
  return zlibWrapped ? inflateSync(bytes, options) : inflateRawSync(bytes, options);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
