import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../src/emulator/server.js';

export interface SwitchableService {
  /** The emulator as the daemon sees it: every request passes through here. */
  readonly service: RunningEmulator;
  /**
   * While true, every write is answered 400 with a message that quotes the
   * request's Authorization header and body: a service that echoes what it was sent.
   */
  rejectWrites: boolean;
  /** Milliseconds every read waits before it is passed on: a slow service. */
  delayReadsMs: number;
  close(): Promise<void>;
}

/** A real HTTP hop in front of `emulator` that a test can turn hostile. */
export async function startSwitchableService(emulator: RunningEmulator): Promise<SwitchableService> {
  const state = { rejectWrites: false, delayReadsMs: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // An upstream gone (the test over, the emulator closed while a read waited) drops the connection,
      // as a proxy whose backend is down does, rather than leaving a rejection nobody handles.
      forward(req, Buffer.concat(chunks), res).catch(() => res.destroy());
    });
  });
  const forward = async (req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> => {
    if (state.rejectWrites && req.method !== 'GET') {
      const text = JSON.stringify({
        error_code: 'invalid_request',
        status_code: 400,
        msg: `write refused for ${String(req.headers.authorization)}: ${body.toString('utf8')}`,
        details: {},
      });
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(text);
      return;
    }
    if (req.method === 'GET' && state.delayReadsMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, state.delayReadsMs));
    }
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'service-version', 'content-type']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await fetch(`${emulator.url}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length === 0 ? {} : { body }),
    });
    const text = Buffer.from(await answer.arrayBuffer());
    const type = answer.headers.get('content-type');
    res.writeHead(answer.status, type === null ? {} : { 'Content-Type': type });
    res.end(text);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    service: { url: `http://127.0.0.1:${port}`, apiKey: emulator.apiKey, close: () => emulator.close() },
    get rejectWrites() {
      return state.rejectWrites;
    },
    set rejectWrites(value: boolean) {
      state.rejectWrites = value;
    },
    get delayReadsMs() {
      return state.delayReadsMs;
    },
    set delayReadsMs(value: number) {
      state.delayReadsMs = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
