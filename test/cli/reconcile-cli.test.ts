import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

const TOKEN = 'cli-test-token-0123456789abcdef';

describe('edgesync reconcile: what it says when it cannot ask (the CLI as a process)', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-reconcile-cli-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 1 naming the variable when no token file is given', async () => {
    const run = await runEdgesyncProcess(['reconcile', '--daemon-url', 'http://127.0.0.1:9'], {
      limitMs: 30_000,
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('EDGESYNC_RECONCILE_TOKEN_FILE');
  });

  it('exits 1 on a token too short to be safe, without printing it', async () => {
    await writeFile(join(dir, 'token'), 'short\n');

    const run = await runEdgesyncProcess(
      ['reconcile', '--daemon-url', 'http://127.0.0.1:9', '--reconcile-token-file', join(dir, 'token')],
      { limitMs: 30_000 },
    );

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('at least 16 characters');
    expect(run.stderr).not.toContain('short');
  });

  it('exits 1 when no daemon listens there, and when the daemon refuses, never printing the token', async () => {
    await writeFile(join(dir, 'token'), TOKEN);
    const refusing = createServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end('{"error":"refused: a valid token in \\"Authorization: Bearer …\\" is required"}');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const { port } = refusing.address() as AddressInfo;
    const gone = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const free = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(free));
      });
    });

    const unreachable = await runEdgesyncProcess(
      ['reconcile', '--daemon-url', `http://127.0.0.1:${gone}`, '--wait'],
      { env: { EDGESYNC_RECONCILE_TOKEN_FILE: join(dir, 'token') }, limitMs: 30_000 },
    );
    const refused = await runEdgesyncProcess(['reconcile', '--daemon-url', `http://127.0.0.1:${port}`], {
      env: { EDGESYNC_RECONCILE_TOKEN_FILE: join(dir, 'token') },
      limitMs: 30_000,
    });
    await new Promise<void>((resolve) => refusing.close(() => resolve()));

    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(
      `cannot reach the daemon at http://127.0.0.1:${gone} (ECONNREFUSED)`,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('did not accept the request: refused');
    expect(unreachable.stderr + refused.stderr).not.toContain(TOKEN);
  });
});
