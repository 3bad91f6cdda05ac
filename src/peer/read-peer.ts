import {
  type Agent,
  type ClientRequest,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { acceptedEncodings, bodyText, decodeContent } from './decode-body.js';
import { classifyPeerFailure, type PeerFailure } from './peer-failure.js';

/**
 * One HTTP exchange with a peer edgesync does not control: the service, a
 * daemon's `/status` or `/reconcile`, a webhook receiver, a Git host.
 */
export interface PeerRequest {
  readonly method: string;
  /** Where to; a user and password in it are sent as Basic credentials (node:http's rule), never printed here. */
  readonly url: URL;
  /** Sent as given; `Content-Length` is added for a body, `Accept-Encoding` with `decode`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The request body, sent whole. */
  readonly body?: string;
  /**
   * The total deadline, milliseconds from the call: connecting, sending,
   * the headers and the whole body. It holds while bytes keep arriving: a
   * peer that trickles its body one byte a second is cut off at it.
   */
  readonly deadlineMs: number;
  /**
   * Connecting longer than this is `connect_timeout`, which says that
   * nothing was sent (a retry cannot apply a write twice). @default the
   * smaller of `deadlineMs` and 10 000
   */
  readonly connectTimeoutMs?: number;
  /** The most bytes of the body, as sent and, with `decode`, once decoded; past it: `too_large`, nothing more read. */
  readonly maxBodyBytes: number;
  /** Ask for compressed bodies (`Accept-Encoding`) and undo their codings within `maxBodyBytes`. @default false */
  readonly decode?: boolean;
  /**
   * `false`: the answer is its status and headers; the body is not read and
   * the connection is closed (a webhook receiver's `ok` says nothing more).
   * @default true
   */
  readonly readBody?: boolean;
  /** A pool of connections kept between exchanges (the service's). @default a connection of its own */
  readonly agent?: Agent;
}

/** How an exchange ended; `readPeer` never rejects. */
export type PeerAnswer =
  | {
      readonly type: 'response';
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      /** The whole body as UTF-8 text (decoded, without a byte order mark); '' when `readBody` is false. */
      readonly text: string;
    }
  | {
      readonly type: 'too_large';
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      /** The body passed the bound only once its content coding was undone. */
      readonly decoded: boolean;
    }
  | {
      readonly type: 'failed';
      readonly failure: PeerFailure;
      /** In the socket's words (`ECONNRESET`), or for a timeout how far the answer got (`no answer within 10 s`). */
      readonly detail: string;
      /** The status line and headers had arrived: the peer received the request. */
      readonly headersReceived: boolean;
    }
  | { readonly type: 'aborted'; readonly headersReceived: boolean };

/** Connecting longer than this fails as `connect_timeout` unless the whole deadline is shorter. */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The one way edgesync reads a peer: one HTTP request and its whole answer,
 * bounded in size (`maxBodyBytes`, declared, counted and decoded) and in
 * total time (`deadlineMs`, from the call to the body's last byte), and
 * ended at once by `signal` (SIGINT, SIGTERM, a daemon closing). A failure,
 * the deadline and the signal are answers, never rejections, so that each
 * caller says in its own words what it could not read.
 *
 * The deadline is one timer started here and the signal one listener added
 * here, both removed when the answer settles: no `AbortSignal.timeout` or
 * `AbortSignal.any`, whose signals Node may collect while the body is still
 * being read (fetch then read a trickling `/status` for 11 minutes and
 * ignored SIGTERM). Redirects are answers, not followed: credentials must
 * not go somewhere else. `test/architecture/peer-reads.test.ts` holds every
 * HTTP request of `src/` to going through here.
 */
export function readPeer(request: PeerRequest, signal?: AbortSignal): Promise<PeerAnswer> {
  const { url } = request;
  const secure = url.protocol === 'https:';
  return new Promise<PeerAnswer>((resolve) => {
    if (signal?.aborted) {
      resolve({ type: 'aborted', headersReceived: false });
      return;
    }
    let settled = false;
    let exchange: ClientRequest | undefined;
    let connectTimer: NodeJS.Timeout | undefined;
    let headersReceived = false;
    let received = 0;
    const settle = (answer: PeerAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(connectTimer);
      signal?.removeEventListener('abort', onAbort);
      // Whatever is left of the answer is not read: the connection goes, not back to a pool.
      if (answer.type !== 'response' || request.readBody === false) exchange?.destroy();
      resolve(answer);
    };
    const fail = (failure: PeerFailure, detail: string): void =>
      settle({ type: 'failed', failure, detail, headersReceived });
    const onAbort = (): void => settle({ type: 'aborted', headersReceived });
    const onError = (error: unknown): void => {
      if (signal?.aborted) {
        onAbort();
        return;
      }
      const classified = classifyPeerFailure(error);
      fail(classified.failure, classified.detail);
    };
    const onTimeout = (): void => {
      const after = formatMs(request.deadlineMs);
      fail(
        'timeout',
        headersReceived
          ? `the body was still arriving after ${after} (${received} bytes)`
          : `no answer within ${after}`,
      );
    };
    const onResponse = (response: IncomingMessage): void => {
      headersReceived = true;
      const status = response.statusCode ?? 0;
      const { headers } = response;
      if (request.readBody === false) {
        settle({ type: 'response', status, headers, text: '' });
        return;
      }
      if (Number(headers['content-length']) > request.maxBodyBytes) {
        settle({ type: 'too_large', status, headers, decoded: false });
        return;
      }
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > request.maxBodyBytes) settle({ type: 'too_large', status, headers, decoded: false });
        else chunks.push(chunk);
      });
      response.on('error', onError);
      response.on('end', () => {
        if (settled) return;
        let bytes: Buffer = Buffer.concat(chunks);
        if (request.decode === true) {
          try {
            bytes = decodeContent(bytes, headers['content-encoding'], request.maxBodyBytes);
          } catch (error) {
            if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
              settle({ type: 'too_large', status, headers, decoded: true });
            } else {
              fail('other', `response body could not be decoded: ${messageOf(error)}`);
            }
            return;
          }
        }
        settle({ type: 'response', status, headers, text: bodyText(bytes) });
      });
      response.on('close', () => {
        if (!response.complete) onError(new Error('aborted'));
      });
    };

    const deadline = setTimeout(onTimeout, timerMs(request.deadlineMs));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      exchange = (secure ? httpsRequest : httpRequest)(url, {
        method: request.method,
        headers: requestHeaders(request, secure),
        agent: request.agent ?? false,
      });
    } catch (error) {
      // A header node:http refuses to send: an answer like any other failure.
      onError(error);
      return;
    }
    const connectMs = request.connectTimeoutMs ?? Math.min(request.deadlineMs, CONNECT_TIMEOUT_MS);
    exchange.on('socket', (socket: Socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () => fail('connect_timeout', `not connected within ${formatMs(connectMs)}`),
        timerMs(connectMs),
      );
      socket.once('connect', () => clearTimeout(connectTimer));
    });
    exchange.on('response', onResponse);
    exchange.on('error', onError);
    exchange.end(request.body);
  });
}

function requestHeaders(request: PeerRequest, secure: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.decode === true) headers['Accept-Encoding'] = acceptedEncodings(secure);
  if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body));
  return headers;
}

/** Node clamps a timer past 2^31 - 1 ms (24.8 days) to 1 ms: a longer deadline waits that long instead. */
function timerMs(ms: number): number {
  return Math.min(Math.max(1, ms), 2 ** 31 - 1);
}

/** `30 s`, `1.5 s`, `250 ms`. */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
