import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorHandle, openEmulator } from './emulator-client.js';

/**
 * The service serves a hostport from one edge, whatever its kind: a second
 * edge claiming one, by create or PATCH, is refused with 400 `conflict` on
 * `hostports` and nothing changes. An edge may keep its own hostports.
 */
describe('emulator: one edge per hostport', () => {
  let h: EmulatorHandle;
  let webId: string;
  beforeEach(async () => {
    h = await openEmulator();
    const web = await h.call('POST', '/edges/https', { hostports: ['www.example.com:443'] });
    webId = web.body.id;
  });
  afterEach(async () => {
    await h.emulator.close();
  });

  const refusal = (response: {
    status: number;
    body: { error_code?: string; details?: { field?: string } };
  }) => [response.status, response.body.error_code, response.body.details?.field];

  it.each([
    ['an HTTPS edge', '/edges/https'],
    ['a TCP edge', '/edges/tcp'],
    ['a TLS edge', '/edges/tls'],
  ])('creating %s on a served hostport is a conflict naming the edge', async (_kind, path) => {
    const response = await h.call('POST', path, {
      hostports: ['other.example.com:443', 'WWW.example.com:443'],
    });
    expect(refusal(response)).toEqual([400, 'conflict', 'hostports']);
    expect(response.body.msg ?? response.body.message ?? JSON.stringify(response.body)).toContain(webId);
  });

  it("a PATCH that takes another edge's hostport is refused and changes nothing", async () => {
    const blog = await h.call('POST', '/edges/https', { hostports: ['blog.example.com:443'] });
    const patched = await h.call('PATCH', `/edges/https/${blog.body.id}`, {
      hostports: ['blog.example.com:443', 'www.example.com:443'],
    });
    expect(refusal(patched)).toEqual([400, 'conflict', 'hostports']);
    expect((await h.call('GET', `/edges/https/${blog.body.id}`)).body.hostports).toEqual([
      'blog.example.com:443',
    ]);
  });

  it('an edge PATCHed with its own hostports, or taking one another edge let go, is accepted', async () => {
    const own = await h.call('PATCH', `/edges/https/${webId}`, { hostports: ['www.example.com:443'] });
    expect(own.status).toBe(200);
    await h.call('PATCH', `/edges/https/${webId}`, { hostports: ['web.example.com:443'] });
    const taken = await h.call('POST', '/edges/tcp', { hostports: ['www.example.com:443'] });
    expect(taken.status).toBe(201);
  });
});
