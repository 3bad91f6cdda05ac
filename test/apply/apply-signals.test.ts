import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { finished, listRules, ROOT, rulesManifest, spawnCli, waitFor } from './cli-process.js';

const SEED = join(ROOT, 'examples/emulator-seed.yaml');

/**
 * A TCP relay in front of the emulator that counts the POSTs as they arrive,
 * before the emulator's latency: how the test knows that creates are in
 * flight without guessing from the clock.
 */
async function startCountingRelay(
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

describe('edgesync apply interrupted by signals (CLI process)', () => {
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(options: EmulatorOptions = {}) {
    const emulator = await startEmulator({ seed: await loadSeedFile(SEED), ...options });
    cleanups.push(() => emulator.close());
    const relay = await startCountingRelay(emulator);
    cleanups.push(() => relay.close());
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-signals-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'rules.yaml'), rulesManifest(8));
    // The CLI talks to the relay; the test reads the emulator directly.
    return { emulator, relay, dir, target: { ...emulator, url: relay.url } };
  }

  it('SIGTERM with 8 creates in flight: all 8 are reported created', async () => {
    const { emulator, relay, dir, target } = await start({ latencyMs: 1500 });
    const child = spawnCli(target, ['--yes', '--concurrency', '8', dir]);
    const run = finished(child);

    await waitFor(() => relay.posts() === 8);
    child.kill('SIGTERM');
    const result = await run;

    expect(result.stdout).toMatch(/: 8 created, .* 0 failed, 0 skipped in/);
    expect(result.stdout).not.toMatch(/interrupted|unknown/);
    expect(await listRules(emulator)).toHaveLength(8);
  });

  it('SIGTERM with creates in flight longer than the grace period: unknown, never failed, though they landed', async () => {
    const { emulator, relay, dir, target } = await start({ latencyMs: 3000 });
    const child = spawnCli(target, ['--yes', '--concurrency', '8', '--grace-timeout', '1000', dir]);
    const run = finished(child);

    await waitFor(() => relay.posts() === 8);
    child.kill('SIGTERM');
    const result = await run;

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/Apply interrupted: 0 created, .* 0 failed, 0 skipped, 8 unknown in/);
    expect(result.stderr).not.toMatch(/: failed:/);
    await waitFor(async () => (await listRules(emulator)).length === 8);
  });

  it('SIGINT while actions wait for the request budget: exits without waiting out the grace period, interrupted not failed', async () => {
    // The plan reads 4 lists and the IP policy the rules name; 8 requests a minute leave room for 3 creates,
    // then the rest wait ~60 s.
    const { dir, target } = await start();
    const child = spawnCli(target, ['--yes', '--rate-limit', '8/60s', '--grace-timeout', '600000', dir]);
    const run = finished(child);

    await waitFor(() => (run.output().stderr.match(/"action finished"/g)?.length ?? 0) === 3);
    child.kill('SIGINT');
    const result = await run;

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/Apply interrupted: 3 created, .* 0 failed, 0 skipped, 5 interrupted in/);
    expect(result.stderr).not.toMatch(/: failed:|not started/);
  });

  it('a second signal exits at once and says the summary is incomplete', async () => {
    const { relay, dir, target } = await start({ latencyMs: 5000 });
    const child = spawnCli(target, ['--yes', '--concurrency', '8', dir]);
    const run = finished(child);

    await waitFor(() => relay.posts() === 8);
    child.kill('SIGTERM');
    await waitFor(() => run.output().stderr.includes('stopping: no new actions start'));
    child.kill('SIGTERM');
    const result = await run;

    expect(result.signal).toBe('SIGTERM');
    expect(result.stderr).toContain('edgesync: second SIGTERM: exiting now; the summary is incomplete');
    expect(result.stdout).not.toContain('Apply');
  });
});
