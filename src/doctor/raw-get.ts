import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { MAX_RESPONSE_BYTES } from '../api/http-attempt.js';
import type { NetworkFailure } from '../api/network-error.js';
import { classifyNetworkFailure } from '../api/network-failure.js';

/** What one GET got: the answer with its headers (which the client hides), or why none came. */
export type RawAnswer =
  | {
      readonly type: 'response';
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      /** The body parsed as JSON; undefined when it is not JSON. */
      readonly json: unknown;
    }
  | { readonly type: 'network'; readonly failure: NetworkFailure; readonly detail: string };

export interface RawGetOptions {
  readonly apiKey: string;
  /** Sends `Service-Version: 2`. @default true */
  readonly serviceVersion?: boolean;
  /** Milliseconds. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * One GET, no retry, no budget slot: the doctor's read-only checks need the
 * status, the headers and the exact network failure (a refused certificate
 * and why), which the client turns into errors. The body is bounded as the
 * client bounds it; it is never decompressed (no Accept-Encoding is sent).
 */
export function rawGet(url: URL, options: RawGetOptions): Promise<RawAnswer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let done = false;
    const finish = (answer: RawAnswer): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const failWith = (error: unknown): void => {
      const { failure, detail } = classifyNetworkFailure(error);
      finish({ type: 'network', failure, detail });
    };
    const request = send(
      url,
      {
        method: 'GET',
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          accept: 'application/json',
          ...(options.serviceVersion === false ? {} : { 'service-version': '2' }),
        },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_RESPONSE_BYTES) {
            response.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', failWith);
        response.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            json = undefined;
          }
          finish({ type: 'response', status: response.statusCode ?? 0, headers: response.headers, json });
        });
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ type: 'network', failure: 'timeout', detail: `within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    request.on('error', failWith);
    request.end();
  });
}
