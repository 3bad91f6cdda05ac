import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { rulesManifest, runEdgesync } from './cli-process.js';

const KEY = 'sk_test_ConnectionErrors0123';

/** A TCP server that accepts every connection, records what arrives, and never answers. */
async function startSilentServer(): Promise<{
  url: string;
  requestLines(): string[];
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let received = '';
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requestLines: () => received.match(/^(GET|POST|PUT|PATCH|DELETE) \S+/gm) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The lines edgesync wrote on stderr that are neither JSON log lines nor the note of what it read (written before any request). */
function messages(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('{') && !line.startsWith('read '));
}

describe('connection errors say what to check (CLI process, real sockets)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  let dir = '';

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function manifests(): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-connection-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'rules.yaml'), rulesManifest(2));
    return dir;
  }

  it('a refused connection names the host and what to check, once', async () => {
    const port = await closedPort();

    const result = await runEdgesync(['plan', await manifests()], {
      EDGE_API_URL: `http://127.0.0.1:${port}`,
      EDGE_API_KEY: KEY,
    });

    expect(result.code).toBe(1);
    expect(messages(result.stderr)).toEqual([
      `edgesync: cannot reach http://127.0.0.1:${port} (connection refused): is EDGE_API_URL (--api-url) right and the service up?`,
    ]);
  });

  it('a server that accepts and never answers fails after one --timeout, each request sent once', async () => {
    const silent = await startSilentServer();
    cleanups.push(() => silent.close());

    const result = await runEdgesync(['plan', '--timeout', '1s', await manifests()], {
      EDGE_API_URL: silent.url,
      EDGE_API_KEY: KEY,
    });

    expect(result.code).toBe(1);
    const [message, ...rest] = messages(result.stderr);
    expect(rest).toEqual([]);
    expect(message).toMatch(
      new RegExp(
        `^edgesync: GET ${silent.url}/\\w+\\?limit=100: no complete answer within 1 s: the service took the connection and did not answer; is EDGE_API_URL \\(--api-url\\) right, or does --timeout need raising\\?$`,
      ),
    );
    const lines = silent.requestLines();
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('a refused key says to check EDGE_API_KEY and never shows the key', async () => {
    const emulator = await startEmulator({ apiKey: 'sk_test_TheRightKey000000' });
    cleanups.push(() => emulator.close());

    // In this process: the message is the subject; the two tests above hold the process's side.
    const result = await runEdgesyncInProcess(['plan', await manifests()], {
      env: { EDGE_API_URL: emulator.url, EDGE_API_KEY: KEY },
    });

    expect(result.code).toBe(1);
    const [message, ...rest] = messages(result.stderr);
    expect(rest).toEqual([]);
    expect(message).toMatch(
      /^edgesync: the service refused the API key \(GET \/\w+\?limit=100: 401 unauthorized: .*\): check EDGE_API_KEY \(--api-key\)$/,
    );
    expect(result.stderr + result.stdout).not.toContain(KEY);
  });

  it.each(['/v1', '/api/v2/'])(
    'an API URL with a path the service is not under (%s) says to check EDGE_API_URL, on one line',
    async (extra) => {
      const emulator = await startEmulator({ apiKey: KEY });
      cleanups.push(() => emulator.close());

      const result = await runEdgesync(['plan', await manifests()], {
        EDGE_API_URL: `${emulator.url}${extra}`,
        EDGE_API_KEY: KEY,
      });

      expect(result.code).toBe(1);
      const [message, ...rest] = messages(result.stderr);
      expect(rest).toEqual([]);
      expect(message).toMatch(
        /^edgesync: the service has no \/\w+ \(GET \/\w+\?limit=100: 404 not_found: .*\): check EDGE_API_URL \(--api-url\): it should be the API's root$/,
      );
    },
  );

  it('a 404 for an ID the manifest names is not taken for a wrong URL', async () => {
    const emulator = await startEmulator({ apiKey: KEY });
    cleanups.push(() => emulator.close());
    const dir = await manifests();
    await writeFile(
      join(dir, 'edges.yaml'),
      'version: 1\ntcp_edges:\n  gone:\n    id: edgtcp_NoSuchEdge000000000000000001\n    ip_restriction: null\n',
    );

    const result = await runEdgesyncInProcess(['plan', dir], {
      env: { EDGE_API_URL: emulator.url, EDGE_API_KEY: KEY },
    });

    expect(result.code).toBe(1);
    expect(result.stderr + result.stdout).not.toContain('EDGE_API_URL');
  });

  it.each([
    ['http//127.0.0.1:8099', 'is not a URL: "http//127.0.0.1:8099"; expected e.g. https://api.example.com'],
    ['127.0.0.1:8099 ', 'is not a URL: "127.0.0.1:8099 "; expected e.g. https://api.example.com'],
    ['ftp://127.0.0.1/', 'must be an http(s) URL without query, fragment or credentials: "ftp://127.0.0.1/"'],
    [
      'https://user:pw@api.example.com',
      'must be an http(s) URL without query, fragment or credentials: "https://***@api.example.com"',
    ],
  ])('a malformed URL %j is quoted as typed', async (typed, expected) => {
    const result = await runEdgesyncInProcess(['plan', await manifests()], {
      env: { EDGE_API_URL: typed, EDGE_API_KEY: KEY },
    });

    expect(result.code).toBe(1);
    expect(messages(result.stderr)).toEqual([`edgesync: EDGE_API_URL (--api-url) ${expected}`]);
  });
});
