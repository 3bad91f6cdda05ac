import type { IncomingHttpHeaders } from 'node:http';
import { MAX_RESPONSE_BYTES } from '../api/http-attempt.js';
import type { PeerFailure } from '../peer/peer-failure.js';
import { readPeer } from '../peer/read-peer.js';

/** What one GET got: the answer with its headers (which the client hides), or why none came. */
export type RawAnswer =
  | {
      readonly type: 'response';
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      /** The body parsed as JSON; undefined when it is not JSON. */
      readonly json: unknown;
    }
  | { readonly type: 'network'; readonly failure: PeerFailure; readonly detail: string };

export interface RawGetOptions {
  readonly apiKey: string;
  /** Sends `Service-Version: 2`. @default true */
  readonly serviceVersion?: boolean;
  /** Milliseconds: connecting, the headers and the whole body. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * One GET, no retry, no budget slot: the doctor's read-only checks need the
 * status, the headers and the exact network failure (a refused certificate
 * and why), which the client turns into errors. The body is bounded as the
 * client bounds it, in size and time; it is never decompressed (no
 * Accept-Encoding is sent).
 */
export async function rawGet(url: URL, options: RawGetOptions): Promise<RawAnswer> {
  const answer = await readPeer(
    {
      method: 'GET',
      url,
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        accept: 'application/json',
        ...(options.serviceVersion === false ? {} : { 'service-version': '2' }),
      },
      deadlineMs: options.timeoutMs,
      maxBodyBytes: MAX_RESPONSE_BYTES,
    },
    options.signal,
  );
  switch (answer.type) {
    case 'response':
      return {
        type: 'response',
        status: answer.status,
        headers: answer.headers,
        json: parseJson(answer.text),
      };
    case 'too_large':
      return {
        type: 'network',
        failure: 'other',
        detail: `HTTP ${answer.status} with a body over ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB; not read`,
      };
    case 'failed':
      return { type: 'network', failure: answer.failure, detail: answer.detail };
    case 'aborted':
      return { type: 'network', failure: 'other', detail: 'interrupted' };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
