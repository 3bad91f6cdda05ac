import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { walkManifestTree } from '../../src/manifest/manifest-files.js';
import { readBoundedFile } from '../../src/manifest/read-bounded-file.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';
import { findOnPath, shellPath } from '../support/shell-path.js';

/** One rule, its CIDR its own: an address from the name's first letter (one rule per CIDR and policy). */
const RULE = (name: string, action = 'deny'): string =>
  `version: 1\nip_policy_rules:\n  ${name}:\n    ip_policy_id: ipp_2a8bxxxxxxxxxxxxxxxxxxxxxxxxx\n    cidr: 10.0.0.${name.charCodeAt(0)}/32\n    action: ${action}\n`;

describe('walkManifestTree', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-tree-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('follows `ln -s . d/loop` and `ln -s ../d d/up` at most once, with a warning each', async () => {
    await mkdir(join(dir, 'd', 'sub'), { recursive: true });
    await writeFile(join(dir, 'd', 'a.yaml'), RULE('a'));
    await writeFile(join(dir, 'd', 'sub', 'b.yaml'), RULE('b'));
    await symlink('.', join(dir, 'd', 'loop'));
    await symlink('../d', join(dir, 'd', 'up'));
    await symlink('..', join(dir, 'd', 'sub', 'back'));

    const tree = await walkManifestTree(['d'], { cwd: dir });

    expect(tree.errors).toEqual([]);
    expect(tree.files.map((file) => file.display)).toEqual(['d/a.yaml', 'd/sub/b.yaml']);
    expect(tree.directories).toHaveLength(2);
    expect(tree.warnings.map((warning) => warning.file).sort()).toEqual(['d/loop', 'd/sub/back', 'd/up']);
    expect(tree.warnings[0]?.message).toMatch(/already read/);
  });

  it('reads a symlinked directory inside the root once, and a second link to a file once', async () => {
    await mkdir(join(dir, 'd', 'real'), { recursive: true });
    await writeFile(join(dir, 'd', 'real', 'a.yaml'), RULE('a'));
    await symlink('real', join(dir, 'd', 'alias'));
    await symlink('real/a.yaml', join(dir, 'd', 'z.yaml'));

    const result = await loadDesiredState(['d'], { ...BUILT_IN_LOAD, cwd: dir });

    if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
    expect(result.value.files).toEqual(['d/alias/a.yaml']);
    expect(result.value.warnings).toEqual([
      'd/real: symlink to a directory already read (d/alias); skipped, so no loop or file is read twice',
      'd/z.yaml: same file as d/alias/a.yaml; read once',
    ]);
  });

  it('refuses a link to / and to a directory outside the root without walking it', async () => {
    await mkdir(join(dir, 'd'));
    await symlink('/', join(dir, 'd', 'everything'));

    const tree = await walkManifestTree(['d'], { cwd: dir });

    expect(tree.errors.map((error) => [error.code, error.file])).toEqual([
      ['path_outside_root', 'd/everything'],
    ]);
    expect(tree.directories).toHaveLength(1);
  });

  it('refuses a manifest symlinked outside the root and never puts its content in a message', async () => {
    await mkdir(join(dir, 'd'));
    await mkdir(join(dir, 'elsewhere'));
    await writeFile(join(dir, 'elsewhere', 'secret.yaml'), RULE('leak', 'sk_live_outside_secret_value'));
    await symlink('../elsewhere/secret.yaml', join(dir, 'd', 'secret.yaml'));

    const result = await loadDesiredState(['d'], { ...BUILT_IN_LOAD, cwd: dir });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => [error.code, error.file])).toEqual([
      ['path_outside_root', 'd/secret.yaml'],
    ]);
    expect(result.errors[0]?.format()).toMatch(/outside the manifest root.*--allow-outside-root/);
    expect(JSON.stringify(result.errors.map((error) => [error.format(), error.toJSON()]))).not.toContain(
      'sk_live',
    );
  });

  it('reads the same link with allowOutsideRoot', async () => {
    await mkdir(join(dir, 'd'));
    await writeFile(join(dir, 'shared.yaml'), RULE('shared'));
    await symlink('../shared.yaml', join(dir, 'd', 'shared.yaml'));

    const result = await loadDesiredState(['d'], { ...BUILT_IN_LOAD, cwd: dir, allowOutsideRoot: true });

    if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
    expect(result.value.entries.map((entry) => entry.name)).toEqual(['shared']);
  });

  it.each([
    ['/dev/zero', false, 'path_outside_root'],
    ['/dev/urandom', false, 'path_outside_root'],
    ['/dev/zero', true, 'not_regular_file'],
    ['/dev/urandom', true, 'not_regular_file'],
  ] as const)(
    'refuses zero.yaml -> %s (allowOutsideRoot %s) without reading it: %s',
    async (target, allow, code) => {
      await symlink(target, join(dir, 'zero.yaml'));

      const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir, allowOutsideRoot: allow });

      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors.map((error) => [error.code, error.file])).toEqual([[code, 'zero.yaml']]);
    },
  );

  it('refuses a FIFO named like a manifest without blocking on it, also when named on the command line', async () => {
    execFileSync(findOnPath('mkfifo', shellPath()), [join(dir, 'pipe.yaml')]);

    const walked = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });
    const named = await loadDesiredState(['pipe.yaml'], { ...BUILT_IN_LOAD, cwd: dir });

    for (const result of [walked, named]) {
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors.map((error) => [error.code, error.file])).toEqual([
        ['not_regular_file', 'pipe.yaml'],
      ]);
    }
  });

  it('skips node_modules, .git and other hidden directories, and says which directories held manifests', async () => {
    for (const skipped of ['node_modules/pkg', '.git', '.github/workflows', 'sub/node_modules']) {
      await mkdir(join(dir, skipped), { recursive: true });
      await writeFile(join(dir, skipped, 'x.yaml'), 'not: [a manifest\n');
    }
    await writeFile(join(dir, 'a.yaml'), RULE('a'));
    await writeFile(join(dir, 'sub', 'b.yml'), RULE('b'));

    const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir });

    if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
    expect(result.value.files).toEqual(['a.yaml', 'sub/b.yml']);
    expect(result.value.directories).toEqual(['.', 'sub']);
  });

  // The bound itself, 10,000 directories, is walked in test/reliability/manifest-tree-bound.test.ts.
  it('stops after maxDirectories directories with one error naming the bound', async () => {
    await mkdir(join(dir, 'many'));
    await Promise.all(Array.from({ length: 41 }, (_, index) => mkdir(join(dir, 'many', `d${index}`))));

    const tree = await walkManifestTree(['many'], { cwd: dir, maxDirectories: 40 });

    expect(tree.errors.map((error) => [error.code, error.detail])).toEqual([
      [
        'too_many_directories',
        'more than 40 directories below the paths given; name the manifest directories instead',
      ],
    ]);
    expect(tree.directories).toHaveLength(40);
  });

  it('lists a directory of many other files without keeping them', async () => {
    await mkdir(join(dir, 'bulk'));
    for (let index = 0; index < 2000; index += 1) await writeFile(join(dir, 'bulk', `f${index}`), '');
    await writeFile(join(dir, 'bulk', 'm.yaml'), RULE('m'));

    const tree = await walkManifestTree(['.'], { cwd: dir });

    expect(tree.files.map((file) => file.display)).toEqual(['bulk/m.yaml']);
  });
});

describe('readBoundedFile', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-bounded-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['/dev/zero', '/dev/urandom', '/dev/null'])('refuses %s as not a regular file', async (device) => {
    expect(await readBoundedFile(device, 1024)).toEqual({
      ok: false,
      reason: 'not_regular',
      type: 'a character device',
    });
  });

  it('reads a file of exactly the limit, and refuses one byte more', async () => {
    await writeFile(join(dir, 'at'), 'x'.repeat(100));
    await writeFile(join(dir, 'over'), 'x'.repeat(101));

    const at = await readBoundedFile(join(dir, 'at'), 100);
    const over = await readBoundedFile(join(dir, 'over'), 100);

    expect(at.ok && at.bytes.length).toBe(100);
    expect(over).toEqual({ ok: false, reason: 'too_large' });
  });

  it('does not follow a final symlink: the caller passes the real path it checked', async () => {
    await writeFile(join(dir, 'target'), 'x');
    await symlink('target', join(dir, 'link'));

    await expect(readBoundedFile(join(dir, 'link'), 100)).rejects.toMatchObject({ code: 'ELOOP' });
  });
});
