import { getEventListeners } from 'node:events';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { readPeer } from '../../src/peer/read-peer.js';
import { scriptedServers } from '../api/scripted-server.js';
import { startTricklingPeer, type TricklingPeer } from '../support/trickling-peer.js';

const serve = scriptedServers();
let peers: TricklingPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.map((peer) => peer.close()));
  peers = [];
});

async function trickling(options: Parameters<typeof startTricklingPeer>[0] = {}): Promise<TricklingPeer> {
  const peer = await startTricklingPeer(options);
  peers.push(peer);
  return peer;
}

const MB = 1024 * 1024;

describe('readPeer: the deadline covers the whole body', () => {
  it('ends a read whose body keeps arriving at the deadline, and closes the connection', async () => {
    const peer = await trickling({ everyMs: 20 });

    const answer = await readPeer({
      method: 'GET',
      url: new URL(`${peer.url}/status`),
      deadlineMs: 400,
      maxBodyBytes: 8 * MB,
    });

    expect(answer).toMatchObject({ type: 'failed', failure: 'timeout', headersReceived: true });
    expect(answer.type === 'failed' && answer.detail).toMatch(
      /^the body was still arriving after 400 ms \(\d+ bytes\)$/,
    );
    await peer.cutOff;
  });

  it('ends a read whose peer sends no headers at the deadline', async () => {
    const peer = await trickling({ silent: true });

    const answer = await readPeer({
      method: 'GET',
      url: new URL(peer.url),
      deadlineMs: 300,
      maxBodyBytes: MB,
    });

    expect(answer).toEqual({
      type: 'failed',
      failure: 'timeout',
      detail: 'no answer within 300 ms',
      headersReceived: false,
    });
    await peer.cutOff;
  });

  it('ends a trickling read when the signal aborts, and leaves no listener on the signal', async () => {
    const peer = await trickling();
    const stop = new AbortController();

    const reading = readPeer(
      { method: 'GET', url: new URL(peer.url), deadlineMs: 600_000, maxBodyBytes: 8 * MB },
      stop.signal,
    );
    await peer.answering;
    stop.abort();

    expect(await reading).toMatchObject({ type: 'aborted' });
    expect(getEventListeners(stop.signal, 'abort')).toEqual([]);
    await peer.cutOff;
  });

  it('answers aborted at once for a signal that already aborted, and sends nothing', async () => {
    const peer = await trickling();

    const answer = await readPeer(
      { method: 'GET', url: new URL(peer.url), deadlineMs: 1000, maxBodyBytes: MB },
      AbortSignal.abort(),
    );

    expect(answer).toEqual({ type: 'aborted', headersReceived: false });
    expect(peer.requests).toEqual([]);
  });

  it('removes its listener from a signal shared by many reads once each read is answered', async () => {
    const server = await serve((_request, response) => response.end('{}'));
    const shared = new AbortController();

    for (let i = 0; i < 20; i += 1) {
      await readPeer(
        { method: 'GET', url: new URL(server.url), deadlineMs: 5000, maxBodyBytes: MB },
        shared.signal,
      );
    }

    expect(getEventListeners(shared.signal, 'abort')).toEqual([]);
  });
});

describe('readPeer: sizes, bodies and answers', () => {
  it('reads a whole answer: status, headers and text without a byte order mark; sends the body with its length', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(201, { 'X-Answer': 'yes' });
      response.end('\ufeff{"ok":true}');
    });

    const answer = await readPeer({
      method: 'POST',
      url: new URL(`${server.url}/hook`),
      headers: { 'Content-Type': 'application/json' },
      body: '{"text":"é"}',
      deadlineMs: 5000,
      maxBodyBytes: MB,
    });

    expect(answer).toMatchObject({ type: 'response', status: 201, text: '{"ok":true}' });
    expect(answer.type === 'response' && answer.headers['x-answer']).toBe('yes');
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/hook', body: '{"text":"é"}' });
    expect(server.requests[0]?.headers['content-length']).toBe('13');
  });

  it('refuses a declared length over the bound without reading, and a counted one as soon as it passes', async () => {
    const declared = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Length': String(2 * MB) });
      response.write('x');
    });
    const counted = await serve((_request, response) => {
      response.writeHead(200);
      response.end(Buffer.alloc(MB + 1, 'x'));
    });

    const first = await readPeer({
      method: 'GET',
      url: new URL(declared.url),
      deadlineMs: 5000,
      maxBodyBytes: MB,
    });
    const second = await readPeer({
      method: 'GET',
      url: new URL(counted.url),
      deadlineMs: 5000,
      maxBodyBytes: MB,
    });

    expect(first).toMatchObject({ type: 'too_large', status: 200, decoded: false });
    expect(second).toMatchObject({ type: 'too_large', status: 200, decoded: false });
  });

  it('decodes gzip only when asked, and refuses a body that inflates past the bound', async () => {
    const bomb = gzipSync(Buffer.alloc(4 * MB, 'a'));
    const server = await serve((request, response) => {
      response.writeHead(200, { 'Content-Encoding': 'gzip' });
      response.end(request.url === '/bomb' ? bomb : gzipSync('{"small":1}'));
    });

    const small = await readPeer({
      method: 'GET',
      url: new URL(`${server.url}/small`),
      deadlineMs: 5000,
      maxBodyBytes: MB,
      decode: true,
    });
    const inflated = await readPeer({
      method: 'GET',
      url: new URL(`${server.url}/bomb`),
      deadlineMs: 5000,
      maxBodyBytes: MB,
      decode: true,
    });

    expect(small).toMatchObject({ type: 'response', text: '{"small":1}' });
    expect(inflated).toMatchObject({ type: 'too_large', decoded: true });
    expect(server.requests[0]?.headers['accept-encoding']).toBe('gzip, deflate');
  });

  it('with readBody false answers at the headers and closes the connection, whatever the body does', async () => {
    const peer = await trickling({ status: 202 });

    const answer = await readPeer({
      method: 'POST',
      url: new URL(peer.url),
      body: '{}',
      deadlineMs: 600_000,
      maxBodyBytes: 0,
      readBody: false,
    });

    expect(answer).toMatchObject({ type: 'response', status: 202, text: '' });
    await peer.cutOff;
  });

  it('names a refused connection, and follows no redirect', async () => {
    const gone = await startTricklingPeer();
    const url = new URL(gone.url);
    await gone.close();
    const redirecting = await serve((_request, response) => {
      response.writeHead(302, { Location: 'http://127.0.0.1:1/elsewhere' });
      response.end();
    });

    const refused = await readPeer({ method: 'GET', url, deadlineMs: 5000, maxBodyBytes: MB });
    const redirect = await readPeer({
      method: 'GET',
      url: new URL(redirecting.url),
      deadlineMs: 5000,
      maxBodyBytes: MB,
    });

    expect(refused).toEqual({
      type: 'failed',
      failure: 'connection_refused',
      detail: 'ECONNREFUSED',
      headersReceived: false,
    });
    expect(redirect).toMatchObject({ type: 'response', status: 302 });
  });
});
