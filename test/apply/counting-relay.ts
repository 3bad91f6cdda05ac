import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { ROOT, rulesManifest } from './cli-process.js';

const SEED = join(ROOT, 'examples/emulator-seed.yaml');

/**
 * What the signal tests apply: the example emulator behind a counting relay,
 * and a directory of 8 rules. The CLI talks to the relay (`target`); the test
 * reads the emulator directly. What it starts goes on `cleanups`.
 */
export async function startRelayedApply(cleanups: Array<() => Promise<void>>, options: EmulatorOptions = {}) {
  const emulator = await startEmulator({ seed: await loadSeedFile(SEED), ...options });
  cleanups.push(() => emulator.close());
  const relay = await startCountingRelay(emulator);
  cleanups.push(() => relay.close());
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-signals-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'rules.yaml'), rulesManifest(8));
  return { emulator, relay, dir, target: { ...emulator, url: relay.url } };
}

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
