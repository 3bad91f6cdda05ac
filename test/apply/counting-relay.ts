import { connect, createServer, type Server, type Socket } from 'node:net';
import type { RunningEmulator } from '../../src/emulator/server.js';

/**
 * A TCP relay in front of the emulator that counts the POSTs as they arrive,
 * before the emulator's latency: how the test knows that creates are in
 * flight without guessing from the clock.
 */
export async function startCountingRelay(
  target: RunningEmulator,
): Promise<{ url: string; posts(): number; close(): Promise<void> }> {
  const { hostname, port } = new URL(target.url);
  let posts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.on('data', (chunk: Buffer) => {
      posts += chunk.toString('latin1').match(/(^|\r\n)POST \//g)?.length ?? 0;
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const relayPort = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${relayPort}`,
    posts: () => posts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
