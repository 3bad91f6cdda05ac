import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialExposure, readCredentialFile } from '../src/credential-file.js';

describe('readCredentialFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-credential-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads through a chain of links as a Kubernetes Secret volume lays them out, and judges the target', async () => {
    await mkdir(join(dir, '..2026_11_29'));
    await writeFile(join(dir, '..2026_11_29', 'token'), 'secret-token-value');
    await chmod(join(dir, '..2026_11_29', 'token'), 0o666);
    await symlink('..2026_11_29', join(dir, '..data'));
    await symlink('..data/token', join(dir, 'token'));

    const read = await readCredentialFile(join(dir, 'token'), '--reconcile-token-file');

    expect(read.bytes.toString()).toBe('secret-token-value');
    expect(read.exposure).toBe('readable by every user (mode 0666)');
  });

  it('says nothing of a file only its owner reads, and refuses a directory or an endless file by name', async () => {
    await writeFile(join(dir, 'private'), 'x', { mode: 0o600 });
    await chmod(join(dir, 'private'), 0o600);

    const read = await readCredentialFile(join(dir, 'private'), '--plan-key-file');

    expect(read.exposure).toBeUndefined();
    await expect(readCredentialFile(dir, '--plan-key-file')).rejects.toThrow(
      `--plan-key-file: cannot read ${dir} (not a regular file)`,
    );
    await expect(readCredentialFile('/dev/zero', '--notify-file')).rejects.toThrow(
      '--notify-file: cannot read /dev/zero (not a regular file)',
    );
    await expect(readCredentialFile(join(dir, 'missing'), '--plan-key-file')).rejects.toThrow('(ENOENT)');
  });

  it.each([
    [0o600, 1000, [1000], undefined],
    [0o440, 2000, [1000, 2000], undefined],
    [0o640, 2000, [1000], 'readable by group 2000, which this process is not in (mode 0640)'],
    [0o644, 1000, [1000], 'readable by every user (mode 0644)'],
    [0o604, 1000, [1000], 'readable by every user (mode 0604)'],
    [0o666, 1000, [1000], 'readable by every user (mode 0666)'],
  ])('mode %o, group %i, process groups %j: %s', (mode, gid, gids, expected) => {
    expect(credentialExposure({ mode: 0o100000 | mode, gid }, { gids })).toBe(expected);
  });
});
