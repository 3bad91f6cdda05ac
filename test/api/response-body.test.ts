import type { ServerResponse } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../../src/api/http-attempt.js';
import { OutcomeUnknownError } from '../../src/api/outcome-unknown-error.js';
import { ResponseTooLargeError } from '../../src/api/response-too-large-error.js';
import { clientOnFakeTime } from './fake-time-client.js';
import { scriptedServers } from './scripted-server.js';

const serve = scriptedServers();
const rule = { id: 'ipr_1', cidr: '10.0.0.0/8', description: 'Grüße' };

describe('createApiClient: response bodies', () => {
  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
  ] as const)('asks for compressed answers and decodes a %s body', async (coding, compress) => {
    const server = await serve((_request, response) => {
      const bytes = compress(Buffer.from(JSON.stringify(rule)));
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': coding });
      response.end(bytes);
    });
    const api = clientOnFakeTime(server.url);

    const result = await api.request({ method: 'GET', path: '/ip_policy_rules/ipr_1' });

    expect(result.body).toEqual(rule);
    expect(server.requests[0]?.headers['accept-encoding']).toBe('gzip, deflate');
  });

  it('reads a body that starts with a byte order mark', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(`\ufeff${JSON.stringify(rule)}`);
    });
    const api = clientOnFakeTime(server.url);

    const result = await api.request({ method: 'GET', path: '/ip_policy_rules/ipr_1' });

    expect(result.body).toEqual(rule);
  });
});

describe('createApiClient: bodies over the bound', () => {
  const LIMIT = 64 * 1024;
  const json = (bytes: number) => `{"pad":"${' '.repeat(bytes - 10)}"}`;

  /** Writes `chunk` until the client goes, with backpressure. */
  function endless(response: ServerResponse, chunk: Buffer): void {
    let open = true;
    response.on('close', () => {
      open = false;
    });
    response.on('error', () => {});
    const more = (): void => {
      while (open) {
        if (!response.write(chunk)) {
          response.once('drain', more);
          return;
        }
      }
    };
    more();
  }

  const bomb = (coding: string, compress: (bytes: Buffer) => Buffer) => (response: ServerResponse) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': coding });
    response.end(compress(Buffer.alloc(4 * 1024 * 1024, 0x20)));
  };

  it.each([
    [
      'a declared Content-Length over the bound',
      (response: ServerResponse) => {
        response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(LIMIT + 1) });
        response.end(json(LIMIT + 1));
      },
      false,
    ],
    [
      'a chunked body over the bound',
      (response: ServerResponse) => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(json(LIMIT + 1));
      },
      false,
    ],
    [
      'a body that never ends',
      (response: ServerResponse) => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        endless(response, Buffer.alloc(4096, 0x20));
      },
      false,
    ],
    ['a gzip body inflating past the bound', bomb('gzip', gzipSync), true],
    ['a deflate body inflating past the bound', bomb('deflate', deflateSync), true],
    ['a raw deflate body inflating past the bound', bomb('deflate', deflateRawSync), true],
    ['a brotli body inflating past the bound', bomb('br', brotliCompressSync), true],
  ] as const)('fails a GET answered with %s, once, without a retry', async (_case, answer, decoded) => {
    const server = await serve((_request, response) => answer(response));
    const api = clientOnFakeTime(server.url, { maxResponseBytes: LIMIT });

    const error = await api.request({ method: 'GET', path: '/ip_policy_rules' }).catch((failure) => failure);

    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ code: 'response_too_large', status: 200, limitBytes: LIMIT, decoded });
    expect(server.requests).toHaveLength(1);
    expect(api.stats()).toMatchObject({ requests: 1, retries: 0 });
  });

  it('reads a body of exactly the bound, as sent and decompressed', async () => {
    const body = json(LIMIT);
    const server = await serve((request, response) => {
      const gzip = request.url.includes('gzip');
      response.writeHead(200, {
        'Content-Type': 'application/json',
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      });
      response.end(gzip ? gzipSync(body) : body);
    });
    const api = clientOnFakeTime(server.url, { maxResponseBytes: LIMIT });

    const plain = await api.request<{ pad: string }>({ method: 'GET', path: '/plain' });
    const inflated = await api.request<{ pad: string }>({ method: 'GET', path: '/gzip' });

    expect(Buffer.byteLength(JSON.stringify(plain.body))).toBe(LIMIT);
    expect(inflated.body).toEqual(plain.body);
  });

  it('makes a create answered 201 with a body over the bound an unknown outcome: it was applied, its ID not read', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(201, { 'Content-Type': 'application/json' });
      response.end(json(LIMIT + 1));
    });
    const api = clientOnFakeTime(server.url, { maxResponseBytes: LIMIT });

    const error = await api
      .request({ method: 'POST', path: '/ip_policy_rules', body: {} })
      .catch((failure) => failure);

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as Error).cause).toBeInstanceOf(ResponseTooLargeError);
    expect(server.requests).toHaveLength(1);
  });

  it('bounds a body at 32 MiB by default', () => {
    expect(MAX_RESPONSE_BYTES).toBe(32 * 1024 * 1024);
  });
});
