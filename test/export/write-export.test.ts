import { existsSync, watch } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENERATED_MARK } from '../../src/export/render-manifests.js';
import { writeExport } from '../../src/export/write-export.js';

const manifest = (body: string): string =>
  `# yaml-language-server: $schema=x\n#\n${GENERATED_MARK} from the live account.\n${body}`;

describe('writeExport', () => {
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'edgesync-write-'));
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('writes into a new directory and leaves no temp files', async () => {
    const target = join(directory, 'out');

    await writeExport(target, [
      { path: 'a.yaml', content: manifest('version: 1\n') },
      { path: 'certs/x.pem', content: 'PEM\n' },
    ]);

    expect((await readdir(target, { recursive: true })).sort()).toEqual(['a.yaml', 'certs', 'certs/x.pem']);
  });

  it('refuses to replace a non-empty file it did not write, unless forced', async () => {
    await writeFile(join(directory, 'a.yaml'), 'version: 1 # hand-written\n');
    await writeFile(join(directory, 'empty.yaml'), '');

    const refused = writeExport(directory, [{ path: 'a.yaml', content: manifest('version: 1\n') }]);

    await expect(refused).rejects.toMatchObject({ code: 'export_would_overwrite' });
    expect(await readFile(join(directory, 'a.yaml'), 'utf8')).toBe('version: 1 # hand-written\n');
    await writeExport(directory, [{ path: 'empty.yaml', content: manifest('version: 1\n') }]);
    await writeExport(directory, [{ path: 'a.yaml', content: manifest('version: 1\n') }], { force: true });
    expect(await readFile(join(directory, 'a.yaml'), 'utf8')).toBe(manifest('version: 1\n'));
  });

  it('replaces its own files and removes those of an earlier export that are gone, keeping unrelated files', async () => {
    await mkdir(join(directory, 'certs'));
    await writeFile(join(directory, 'README.md'), 'notes\n');
    await writeFile(join(directory, 'certs', 'mine.pem'), 'hand\n');
    await writeExport(directory, [
      { path: 'a.yaml', content: manifest('ca_pem_file: certs/old.pem\n') },
      { path: 'b.yaml', content: manifest('version: 1\n') },
      { path: 'certs/old.pem', content: 'OLD\n' },
    ]);

    const result = await writeExport(directory, [{ path: 'a.yaml', content: manifest('version: 1\n') }]);

    expect(result.removed).toEqual(['b.yaml', 'certs/old.pem']);
    expect((await readdir(directory, { recursive: true })).sort()).toEqual([
      'README.md',
      'a.yaml',
      'certs',
      'certs/mine.pem',
    ]);
  });
});

describe.each([
  { way: 'through /proc/self/fd', descriptorPaths: true },
  { way: 'by plain paths checked one component at a time', descriptorPaths: false },
])('writeExport follows no link in the directory ($way)', ({ descriptorPaths }) => {
  let directory: string;
  let out: string;
  let outside: string;
  const options = { directory: { descriptorPaths } };

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'edgesync-write-links-'));
    out = join(directory, 'out');
    outside = join(directory, 'outside');
    await mkdir(out);
    await mkdir(outside);
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it.skipIf(descriptorPaths && !existsSync('/proc/self/fd'))(
    'refuses a linked certs/ before writing any file, naming it',
    async () => {
      await symlink(outside, join(out, 'certs'));

      const refused = writeExport(
        out,
        [
          { path: 'a.yaml', content: manifest('ca_pem_file: certs/x.pem\n') },
          { path: 'certs/x.pem', content: 'PEM\n' },
        ],
        options,
      );

      await expect(refused).rejects.toMatchObject({
        code: 'export_unsafe_path',
        path: join(out, 'certs'),
        message: expect.stringContaining(`${join(out, 'certs')} is a symbolic link`),
      });
      expect(await readdir(outside)).toEqual([]);
      expect(await readdir(out)).toEqual(['certs']);
    },
  );

  it('refuses a file where a directory is expected', async () => {
    await writeFile(join(out, 'certs'), 'not a directory\n');

    const refused = writeExport(out, [{ path: 'certs/x.pem', content: 'PEM\n' }], options);

    await expect(refused).rejects.toMatchObject({
      code: 'export_unsafe_path',
      message: expect.stringContaining(`${join(out, 'certs')} is a regular file, not a directory`),
    });
  });

  it('refuses to remove a side file named through a linked directory, and removes nothing', async () => {
    await writeFile(join(outside, 'victim.pem'), 'precious\n');
    await symlink(outside, join(out, 'linked'));
    await writeFile(join(out, 'gone.yaml'), manifest('ca_pem_file: linked/victim.pem\n'));

    const refused = writeExport(out, [{ path: 'a.yaml', content: manifest('version: 1\n') }], options);

    await expect(refused).rejects.toMatchObject({ code: 'export_unsafe_path', path: join(out, 'linked') });
    expect(await readFile(join(outside, 'victim.pem'), 'utf8')).toBe('precious\n');
    expect((await readdir(out)).sort()).toEqual(['gone.yaml', 'linked']);
  });

  it('ignores side files named outside the directory, by .. or an absolute path', async () => {
    await writeFile(join(outside, 'victim.pem'), 'precious\n');
    await writeFile(
      join(out, 'gone.yaml'),
      manifest(`ca_pem_file: ../outside/victim.pem\nca_pem_file: ${join(outside, 'victim.pem')}\n`),
    );

    const result = await writeExport(out, [{ path: 'a.yaml', content: manifest('version: 1\n') }], options);

    expect(result.removed).toEqual(['gone.yaml']);
    expect(await readFile(join(outside, 'victim.pem'), 'utf8')).toBe('precious\n');
  });

  it('replaces a link at a target by a file (with --force) and never writes through it', async () => {
    await writeFile(join(outside, 'victim.yaml'), 'precious\n');
    await symlink(join(outside, 'victim.yaml'), join(out, 'a.yaml'));

    const refused = writeExport(out, [{ path: 'a.yaml', content: manifest('version: 1\n') }], options);
    await expect(refused).rejects.toMatchObject({ code: 'export_would_overwrite' });
    await writeExport(out, [{ path: 'a.yaml', content: manifest('version: 1\n') }], {
      ...options,
      force: true,
    });

    expect(await readFile(join(outside, 'victim.yaml'), 'utf8')).toBe('precious\n');
    expect((await lstat(join(out, 'a.yaml'))).isFile()).toBe(true);
    expect(await readFile(join(out, 'a.yaml'), 'utf8')).toBe(manifest('version: 1\n'));
  });

  it('removes a side file that is a link as the link, never what it leads to', async () => {
    await writeFile(join(outside, 'victim.pem'), 'precious\n');
    await mkdir(join(out, 'certs'));
    await symlink(join(outside, 'victim.pem'), join(out, 'certs', 'x.pem'));
    await writeFile(join(out, 'gone.yaml'), manifest('ca_pem_file: certs/x.pem\n'));

    const result = await writeExport(out, [{ path: 'a.yaml', content: manifest('version: 1\n') }], options);

    expect(result.removed).toEqual(['certs/x.pem', 'gone.yaml']);
    expect(await readFile(join(outside, 'victim.pem'), 'utf8')).toBe('precious\n');
    expect(await readdir(join(out, 'certs'))).toEqual([]);
  });

  it('writes no temporary file at a name another writer could predict, and leaves none behind', async () => {
    const names = new Set<string>();
    const watcher = watch(out, (_event, name) => {
      if (name?.endsWith('.tmp')) names.add(name);
    });

    await writeExport(out, [{ path: 'a.yaml', content: manifest('version: 1\n') }], options);
    await writeExport(out, [{ path: 'a.yaml', content: manifest('version: 1\n# again\n') }], options);
    await new Promise((resolve) => setTimeout(resolve, 50));
    watcher.close();

    expect(names.size).toBe(2);
    for (const name of names) expect(name).toMatch(/^\.a\.yaml\.[0-9a-f]{16}\.tmp$/);
    expect(await readdir(out)).toEqual(['a.yaml']);
  });
});
