import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a receiver answers: 204, 500, never, or not at all (nothing listens on its port). */
export type ReceiverBehaviour = 'ok' | 'fail' | 'hang' | 'gone';

export interface WebhookReceiver {
  /** The URL to give `--notify`, with a token in its path as Slack's and Teams' carry one. */
  readonly url: string;
  /** The token of `url`: it must never show in a log, `/status` or a body. */
  readonly token: string;
  /** Bodies received in full, in order. */
  readonly bodies: string[];
  /** Requests whose answer has not been sent (a hanging receiver holds every one). */
  open(): number;
  /** Resolves once `check` holds, tried now and after each body received: a wait on the receiver, not on time. */
  until(check: () => boolean): Promise<void>;
  close(): Promise<void>;
}

/** A local webhook receiver on 127.0.0.1, port 0, that records what it is sent. */
export async function startReceiver(behaviour: ReceiverBehaviour, token: string): Promise<WebhookReceiver> {
  const bodies: string[] = [];
  const held = new Set<ServerResponse>();
  const waiting = new Set<() => void>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      for (const wake of [...waiting]) wake();
      if (behaviour === 'hang') {
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      res.writeHead(behaviour === 'fail' ? 500 : 204);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  // A receiver that is gone: its port was bound, then let go, so nothing answers there.
  if (behaviour === 'gone') await close();
  return {
    url: `http://127.0.0.1:${port}/hooks/${token}`,
    token,
    bodies,
    open: () => held.size,
    until: (check) =>
      new Promise<void>((resolve) => {
        const wake = (): void => {
          if (!check()) return;
          waiting.delete(wake);
          resolve();
        };
        waiting.add(wake);
        wake();
      }),
    close: behaviour === 'gone' ? async () => {} : close,
  };
}

/** The notification bodies a receiver got, parsed. */
export function notifications(receiver: WebhookReceiver): Record<string, unknown>[] {
  return receiver.bodies.map((body) => JSON.parse(body) as Record<string, unknown>);
}

/** The events a receiver got, in order. */
export function eventsOf(receiver: WebhookReceiver): string[] {
  return notifications(receiver).map((body) => String(body.event));
}
