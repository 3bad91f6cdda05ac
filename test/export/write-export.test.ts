import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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
