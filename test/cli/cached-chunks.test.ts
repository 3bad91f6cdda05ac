import { isAscii } from 'node:buffer';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CachedChunks, chunkCacheDir, MAX_CACHE_FILES } from '../../src/cli/cached-chunks.js';
import { BUILT_CLI } from '../support/built-cli.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHUNKS_DIR = join(REPO_ROOT, 'dist', 'cli', 'chunks');

describe('the bundle chunks are compiled with a code cache written after the command ran', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function chunkFiles(): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-chunks-'));
    const chunks = join(dir, 'chunks');
    await mkdir(chunks);
    // a requires b and b requires a back (circular, as CommonJS allows); b requires a Node module.
    await writeFile(
      join(chunks, 'a.js'),
      '"use strict";\nexports.early = 1;\nconst b = require("./b.js");\nexports.sum = () => b.twice(20) + 2;\nexports.sawEarly = b.sawEarly;\n',
    );
    await writeFile(
      join(chunks, 'b.js'),
      '"use strict";\nconst a = require("./a.js");\nconst { sep } = require("node:path");\nexports.sawEarly = a.early;\nexports.twice = (n) => n * 2;\nexports.sep = sep;\nexports.strict = (function () { return this; })() === undefined;\n',
    );
    return chunks;
  }

  it('runs each chunk once, resolves ./ between chunks and anything else through Node, in strict mode', async () => {
    const chunks = await chunkFiles();
    const loader = new CachedChunks(undefined, { writeCachesAtExit: false });
    const a = loader.load(join(chunks, 'a.js')) as { sum(): number; sawEarly: number };
    expect(a.sum()).toBe(42);
    expect(a.sawEarly).toBe(1);
    expect(loader.load(join(chunks, 'a.js'))).toBe(a);
    const b = loader.load(join(chunks, 'b.js')) as { sep: string; strict: boolean };
    expect(b.sep).toBe('/');
    expect(b.strict).toBe(true);
    expect(loader.loads).toEqual([join(chunks, 'a.js'), join(chunks, 'b.js'), 'node:path']);
    expect(loader.cacheHits).toEqual([]);
  });

  it('a second loader reads the caches the first wrote; an edited chunk of the same length is compiled afresh', async () => {
    const chunks = await chunkFiles();
    const cacheDir = join(dir ?? '', 'cache');
    await mkdir(cacheDir, { mode: 0o700 });
    const first = new CachedChunks(cacheDir, { writeCachesAtExit: false });
    (first.load(join(chunks, 'a.js')) as { sum(): number }).sum();
    first.writeCaches();
    expect((await readdir(cacheDir)).sort()).toEqual([
      expect.stringMatching(/^_-a\.js-\d+-\d+$/),
      expect.stringMatching(/^_-b\.js-\d+-\d+$/),
    ]);

    const second = new CachedChunks(cacheDir, { writeCachesAtExit: false });
    expect((second.load(join(chunks, 'a.js')) as { sum(): number }).sum()).toBe(42);
    expect(second.cacheHits).toEqual([join(chunks, 'a.js'), join(chunks, 'b.js')]);

    // Same length, new content: V8 would take the old cache (it checks only the length); the key must not.
    const b = join(chunks, 'b.js');
    const source = await readFile(b, 'utf8');
    await writeFile(b, source.replace('n * 2', 'n * 3'));
    const { mtime } = await stat(b);
    await utimes(b, mtime, new Date(mtime.getTime() + 5000));
    const third = new CachedChunks(cacheDir, { writeCachesAtExit: false });
    expect((third.load(join(chunks, 'a.js')) as { sum(): number }).sum()).toBe(62);
    expect(third.cacheHits).toEqual([join(chunks, 'a.js')]);
  });

  it('keeps the cache directory bounded over many builds, and the newest build cached', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-chunks-'));
    const cacheDir = join(dir, 'cache');
    await mkdir(cacheDir, { mode: 0o700 });
    const builds = 80;
    const chunksPerBuild = 6;
    const sizes: number[] = [];

    for (let build = 0; build < builds; build += 1) {
      // Each build names its chunks by a hash of their content, as the bundler does.
      const chunks = join(dir, `build-${build}`);
      await mkdir(chunks);
      const names = Array.from(
        { length: chunksPerBuild },
        (_, index) => `chunk${index}-${build}x${index}.js`,
      );
      for (const name of names) {
        await writeFile(
          join(chunks, name),
          `"use strict";\nexports.value = () => ${build} * 100 + ${name.length};\n`,
        );
      }
      for (const command of ['validate', 'plan']) {
        const loader = new CachedChunks(cacheDir, { command, writeCachesAtExit: false });
        for (const name of names) (loader.load(join(chunks, name)) as { value(): number }).value();
        loader.writeCaches();
      }
      sizes.push((await readdir(cacheDir)).length);
    }
    const last = join(dir, `build-${builds - 1}`);
    const again = new CachedChunks(cacheDir, { command: 'plan', writeCachesAtExit: false });
    for (const name of await readdir(last)) again.load(join(last, name));

    expect(builds * chunksPerBuild * 2).toBeGreaterThan(MAX_CACHE_FILES);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_CACHE_FILES);
    expect(again.cacheHits).toHaveLength(chunksPerBuild);
  });

  it('the cache directory is per user, off with NODE_DISABLE_COMPILE_CACHE, and refused when others can write to it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-chunks-'));
    const cacheDir = chunkCacheDir({ NODE_COMPILE_CACHE: dir }, undefined);
    expect(cacheDir).toBe(
      join(dir, `edgesync-${process.version}-${process.arch}-${process.getuid?.() ?? 'user'}`),
    );
    expect(((await stat(cacheDir ?? '')).mode & 0o777).toString(8)).toBe('700');
    expect(
      chunkCacheDir({ NODE_COMPILE_CACHE: dir, NODE_DISABLE_COMPILE_CACHE: '1' }, undefined),
    ).toBeUndefined();
    await chmod(cacheDir ?? '', 0o777);
    expect(chunkCacheDir({ NODE_COMPILE_CACHE: dir }, undefined)).toBeUndefined();
    await chmod(cacheDir ?? '', 0o700);
    await chmod(dir, 0o777);
    expect(chunkCacheDir({ NODE_COMPILE_CACHE: dir }, undefined)).toBeUndefined();
    await chmod(dir, 0o700);
    // Node's own compile cache directory (Node 22.8+) already names the version, V8's flags and the user.
    const nodeDir = join(dir, 'v99.0.0-x64-12345678-0');
    await mkdir(nodeDir, { mode: 0o755 });
    expect(chunkCacheDir({}, nodeDir)).toBe(join(nodeDir, 'edgesync'));
    expect(chunkCacheDir({ NODE_DISABLE_COMPILE_CACHE: '1' }, nodeDir)).toBeUndefined();
  });

  it('the built CLI writes, per command, the caches of the chunks it ran, and answers the same from them', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-chunks-'));
    const env = { PATH: process.env.PATH, NODE_COMPILE_CACHE: dir };
    const cli = (args: readonly string[]) =>
      run(process.execPath, [BUILT_CLI, ...args], { cwd: REPO_ROOT, env });
    // `--help` first: the chunks it shares with validate get caches of its own, not validate's.
    await cli(['--help']);
    const first = await cli(['validate', 'examples/manifests']);
    // Where depends on the Node major (chunkCacheDir): every file under NODE_COMPILE_CACHE that is a chunk's cache.
    const cached = (await readdir(dir, { recursive: true }))
      .map((path) => basename(path))
      .filter((name) => /\.js-\d+-\d+$/.test(name))
      .map((name) => name.replace(/-\d+-\d+$/, ''));
    expect(cached).toContain('_-run-edgesync.js');
    expect(cached).toContain('validate-run-edgesync.js');
    expect(cached.some((name) => name.startsWith('_-validate-command-'))).toBe(false);
    expect(cached.some((name) => name.startsWith('validate-validate-command-'))).toBe(true);
    expect(cached.some((name) => name.includes('emulator-command-'))).toBe(false);
    const second = await cli(['validate', 'examples/manifests']);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stdout).toMatch(/6 files valid/);
  });

  it('every chunk is strict, as the ES modules it was built from, and ASCII, so that it is read without decoding UTF-8', async () => {
    const names = (await readdir(CHUNKS_DIR)).filter((name) => name.endsWith('.js'));
    expect(names).toContain('run-edgesync.js');
    for (const name of names) {
      const bytes = await readFile(join(CHUNKS_DIR, name));
      expect(bytes.toString('utf8')).toMatch(/^"use strict";\n/);
      expect(isAscii(bytes), name).toBe(true);
    }
  });

  it('a chunk that is not ASCII is read as UTF-8', async () => {
    const chunks = await chunkFiles();
    await writeFile(join(chunks, 'c.js'), '"use strict";\nexports.text = "caf\u00e9 \u2026 \u{1F600}";\n');
    await writeFile(join(chunks, 'd.js'), '"use strict";\nexports.text = "café … 😀";\n');
    const loader = new CachedChunks(undefined, { writeCachesAtExit: false });
    const escaped = loader.load(join(chunks, 'c.js')) as { text: string };
    expect((loader.load(join(chunks, 'd.js')) as { text: string }).text).toBe(escaped.text);
  });
});
