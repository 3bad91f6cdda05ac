import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a trickling peer has seen: requests, and the connections the client closed. */
export interface TricklingPeer {
  readonly url: string;
  /** `METHOD path` of each request, in order. */
  readonly requests: string[];
  /** Resolves when a client closes the connection of a request whose answer was still trickling. */
  readonly cutOff: Promise<void>;
  /** Resolves when the first request has arrived and its headers have been sent. */
  readonly answering: Promise<void>;
  close(): Promise<void>;
}

export interface TricklingPeerOptions {
  /** Status line of the answer. @default 200 */
  readonly status?: number;
  /** The body's first bytes, sent with the headers: `{` reads as the start of JSON. @default '{' */
  readonly start?: string;
  /** Bytes of each later write: big enough that the client makes garbage (Node then collects what it holds weakly). @default 8192 */
  readonly chunkBytes?: number;
  /** Milliseconds between writes. @default 100 */
  readonly everyMs?: number;
  /** Send no headers at all: accept the request and stay silent. @default false */
  readonly silent?: boolean;
  /** Requests answered whole and at once, by `METHOD path` (`POST /reconcile`): the others trickle. */
  readonly answered?: Readonly<Record<string, { readonly status: number; readonly body: string }>>;
}

/**
 * A peer that sends its headers and then its body a little at a time,
 * forever, as a stuck proxy or a hostile daemon does: the answer never
 * completes, but bytes keep arriving, so only a deadline over the whole body
 * ends a read of it. Its writes stay far under any size bound (8 KB every
 * 100 ms is 80 KB a second).
 */
export async function startTricklingPeer(options: TricklingPeerOptions = {}): Promise<TricklingPeer> {
  const requests: string[] = [];
  let onCutOff: () => void = () => undefined;
  let onAnswering: () => void = () => undefined;
  const cutOff = new Promise<void>((resolve) => {
    onCutOff = resolve;
  });
  const answering = new Promise<void>((resolve) => {
    onAnswering = resolve;
  });
  const chunk = ' '.repeat(options.chunkBytes ?? 8192);
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const name = `${request.method} ${request.url}`;
    requests.push(name);
    request.resume();
    const whole = options.answered?.[name];
    if (whole !== undefined) {
      response.writeHead(whole.status, { 'Content-Type': 'application/json' });
      response.end(whole.body);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    response.on('close', () => {
      clearInterval(timer);
      if (!response.writableFinished) onCutOff();
    });
    if (options.silent === true) {
      onAnswering();
      return;
    }
    response.writeHead(options.status ?? 200, { 'Content-Type': 'application/json' });
    response.write(options.start ?? '{');
    onAnswering();
    timer = setInterval(() => response.write(chunk), options.everyMs ?? 100);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cutOff,
    answering,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
