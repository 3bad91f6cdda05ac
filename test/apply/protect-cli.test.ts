import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { parseMetadata } from '../../src/kinds/ownership-marker.js';
import { BUILT_CLI } from '../support/built-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SEED = join(ROOT, 'examples/emulator-seed.yaml');

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function apply(emulator: RunningEmulator, args: readonly string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [BUILT_CLI, 'apply', '--yes', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      EDGE_API_URL: emulator.url,
      EDGE_API_KEY: emulator.apiKey,
      OIDC_CLIENT_SECRET: 'x',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

async function reservedAddrs(emulator: RunningEmulator): Promise<{ id: string; metadata?: string }[]> {
  const response = await fetch(`${emulator.url}/reserved_addrs?limit=100`, {
    headers: { authorization: `Bearer ${emulator.apiKey}`, 'service-version': '2' },
  });
  return ((await response.json()) as { reserved_addrs: { id: string; metadata?: string }[] }).reserved_addrs;
}

describe('protect: true holds against the CLI (issue 13)', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function appliedExamples(): Promise<{ running: RunningEmulator; manifests: string }> {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED) });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-protect-'));
    const manifests = join(dir, 'manifests');
    await cp(join(ROOT, 'examples/manifests'), manifests, { recursive: true });
    const first = await apply(emulator, [manifests]);
    expect(first.code).toBe(0);
    return { running: emulator, manifests };
  }

  it('records protect in the marker, and refuses (exit 4) when the file is removed, with or without --force', async () => {
    const { running, manifests } = await appliedExamples();
    const [created] = await reservedAddrs(running);
    await rm(join(manifests, 'reserved-addrs.yaml'));

    const plain = await apply(running, [manifests]);
    const forced = await apply(running, ['--force', '--max-destroy', '100', manifests]);

    expect(parseMetadata(created?.metadata).marker).toEqual({
      owner: 'default',
      name: 'ssh-bastion',
      protect: true,
    });
    expect(plain.code).toBe(4);
    expect(plain.stderr).toContain('protect: true forbids deleting reserved_addrs.ssh-bastion');
    expect(forced.code).toBe(4);
    expect((await reservedAddrs(running)).map((addr) => addr.id)).toEqual([created?.id]);
  });

  it('deletes it only after protect: false was applied on its own', async () => {
    const { running, manifests } = await appliedExamples();
    const file = join(manifests, 'reserved-addrs.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace(/^ {4}protect: true/m, '    protect: false'),
    );

    const unprotect = await apply(running, [manifests]);
    await rm(file);
    const remove = await apply(running, [manifests]);

    expect(unprotect.code).toBe(0);
    expect(unprotect.stdout).toMatch(/1 updated, 0 replaced, 0 deleted/);
    expect(remove.code).toBe(0);
    expect(remove.stdout).toContain('1 deleted');
    expect(await reservedAddrs(running)).toEqual([]);
  });
});
