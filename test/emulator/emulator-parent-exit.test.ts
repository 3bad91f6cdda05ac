import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../support/built-cli.js';
import { shellPath } from '../support/shell-path.js';

const run = promisify(execFile);

/**
 * The emulator stops with the process that started it only under npm, whose
 * `sh -c` wrapper forwards no signal (the README tour's `kill %1`). Started
 * directly it must outlive a shell that detached it on purpose. The shell
 * below starts it in the background and exits at once, orphaning it.
 */
async function startOrphaned(dir: string, env: NodeJS.ProcessEnv): Promise<{ pid: number; url: string }> {
  const err = join(dir, 'emulator.err');
  // The shell waits until the emulator listens, so the emulator knows its
  // parent before the shell exits.
  const script = `"${process.execPath}" "${BUILT_CLI}" emulator --api-key k --port 0 --rate-limit off 2> "${err}" > /dev/null & pid=$!; until grep -q listening "${err}" 2>/dev/null || ! kill -0 $pid 2>/dev/null; do sleep 0.05; done; echo $pid`;
  const { stdout } = await run('/bin/sh', ['-c', script], { env: { ...env, PATH: shellPath(env.PATH) } });
  const pid = Number(stdout.trim());
  const url = /listening on (\S+)/.exec(await readFile(err, 'utf8').catch(() => ''))?.[1];
  if (url !== undefined) return { pid, url };
  throw new Error(`the emulator did not start: ${await readFile(err, 'utf8').catch(() => '')}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 600 && alive(pid); tries++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

describe('edgesync emulator and the process that started it', () => {
  let dir: string;
  const started: number[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-parent-'));
  });
  afterEach(async () => {
    for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('under npm, stops once its parent has exited', async () => {
    const { pid } = await startOrphaned(dir, { ...process.env, npm_command: 'exec' });
    started.push(pid);
    expect(await gone(pid)).toBe(true);
    expect(await readFile(join(dir, 'emulator.err'), 'utf8')).toContain('stopped');
  });

  it('started directly, keeps serving after its parent has exited', async () => {
    const env = { ...process.env };
    delete env.npm_command;
    const { pid, url } = await startOrphaned(dir, env);
    started.push(pid);
    // Longer than several parent checks (500 ms each): an emulator that
    // watched its parent would have stopped by now.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(alive(pid)).toBe(true);
    const answer = await fetch(`${url}/reserved_addrs`, {
      headers: { authorization: 'Bearer k', 'service-version': '2' },
    });
    expect(answer.status).toBe(200);
  });
});
