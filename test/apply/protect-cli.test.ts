import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { parseMetadata } from '../../src/kinds/ownership-marker.js';
import { applyInProcess, ROOT, runCli } from './cli-process.js';

const SEED = join(ROOT, 'examples/emulator-seed.yaml');

/** `edgesync apply --yes ARGS` as a process: what a person's refused apply exits with. */
const apply = (emulator: RunningEmulator, args: readonly string[]) => runCli(emulator, ['--yes', ...args]);
/** The same in this process: for the steps the test is not about. */
const applyHere = (emulator: RunningEmulator, args: readonly string[]) =>
  applyInProcess(emulator, ['--yes', ...args]);

async function reservedAddrs(emulator: RunningEmulator): Promise<{ id: string; metadata?: string }[]> {
  const response = await fetch(`${emulator.url}/reserved_addrs?limit=100`, {
    headers: { authorization: `Bearer ${emulator.apiKey}`, 'service-version': '2' },
  });
  return ((await response.json()) as { reserved_addrs: { id: string; metadata?: string }[] }).reserved_addrs;
}

describe('protect: true holds against the CLI', () => {
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
    const first = await applyHere(emulator, [manifests]);
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

    const unprotect = await applyHere(running, [manifests]);
    await rm(file);
    const remove = await applyHere(running, [manifests]);

    expect(unprotect.code).toBe(0);
    expect(unprotect.stdout).toMatch(/1 updated, 0 replaced, 0 deleted/);
    expect(remove.code).toBe(0);
    expect(remove.stdout).toContain('1 deleted');
    expect(await reservedAddrs(running)).toEqual([]);
  });
});
