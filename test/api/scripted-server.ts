import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Answers one request; `index` counts every request the server received, from 0. */
export type ScriptedHandler = (request: RecordedRequest, response: ServerResponse, index: number) => void;

export interface ScriptedServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server whose answers a test scripts, for the fault shapes an
 * emulator cannot produce on demand (dropped sockets, hangs, odd pages).
 */
export async function startScriptedServer(handler: ScriptedHandler): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      handler(recorded, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * `serve(handler)` for one test file: starts a scripted server and closes
 * every server it started after each test.
 */
export function scriptedServers(): (handler: ScriptedHandler) => Promise<ScriptedServer> {
  let servers: ScriptedServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
  });
  return async (handler) => {
    const server = await startScriptedServer(handler);
    servers.push(server);
    return server;
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

export function sendServiceError(
  response: ServerResponse,
  status: number,
  errorCode: string,
  msg: string,
  details: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  sendJson(
    response,
    status,
    { error_code: errorCode, status_code: status, msg, details: { operation_id: 'op_test0001', ...details } },
    headers,
  );
}

/** Drops the connection without answering: what a crashed proxy or a reset looks like. */
export function dropConnection(response: ServerResponse): void {
  response.socket?.destroy();
}
