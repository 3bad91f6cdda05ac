import type { IncomingMessage, ServerResponse } from 'node:http';
import { MALFORMED_JSON } from './api-errors.js';
import { ServiceError } from './service-error.js';

/**
 * The response header carrying the request's operation ID: the same ID an
 * error body names in `details.operation_id`, so a support request can quote
 * one ID for any answer.
 */
export const OPERATION_ID_HEADER = 'service-operation-id';

export interface RawBody {
  readonly bytes: Buffer;
  readonly tooLarge: boolean;
}

/**
 * Reads the whole body, keeping at most `limit` bytes; a larger body is
 * drained and flagged. A body cut short (the peer ended its side before
 * Content-Length) rejects: the server's `clientError` listener answers it
 * (request-pipeline.ts, createClientErrorListener).
 */
export function readBody(request: IncomingMessage, limit: number): Promise<RawBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(request.headers['content-length'] ?? 0) > limit;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolve({ bytes: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge }));
    request.on('error', reject);
  });
}

/** The body as JSON; `{}` when there is none (a PUT or DELETE may send nothing). */
export function parseJsonBody(raw: RawBody): unknown {
  if (raw.tooLarge) throw new ServiceError(413, 'payload_too_large', 'request body is larger than the limit');
  const text = raw.bytes.toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw MALFORMED_JSON.refuse('request body is not valid JSON');
  }
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (status === 204 || body === undefined) {
    response.writeHead(status, headers);
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}
