import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
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
