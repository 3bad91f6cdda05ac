import { isAscii } from 'node:buffer';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';

/**
 * Cache files one cache directory keeps, at most. Every build writes a set
 * of its own (chunk names carry a content hash, and the key the chunk's size
 * and time), and nothing else removes the sets of builds gone by: on a
 * development machine the directory had grown to 1,932 files, 86 MB. One
 * build's set, every command run, was 109 files (45 KB each on average);
 * this keeps about the newest three builds' sets, some 18 MB.
 */
export const MAX_CACHE_FILES = 400;
/** What a prune leaves, so that the writes of the next few runs do not each prune again. */
const PRUNED_TO = 300;

/**
 * Loads the CommonJS chunks of the `edgesync` bundle (dist/cli/chunks/, made
 * by scripts/bundle-cli.mjs) with a V8 code cache written after the command
 * ran (start time: docs/performance.md).
 *
 * Why not Node's own compile cache: it stores what V8 compiled when the module
 * was compiled, which is only the top level. Every function is compiled when
 * first called, on every run: yaml's parser, the manifest validator, commander.
 * On Node 26 that was a third of `validate`'s own time. A code cache made with
 * `script.createCachedData()` after the command ran holds those functions too,
 * and an ES module cannot be given one; a chunk compiled as a script can.
 *
 * A chunk is CommonJS as rolldown emits it: `require("./other-chunk.js")`
 * loads another chunk through here, anything else (`node:fs`, `pino`) through
 * Node. Each chunk runs once, as in Node's loader, circular requires included.
 */
export class CachedChunks {
  readonly #modules = new Map<string, { exports: unknown }>();
  readonly #nodeRequires = new Map<string, NodeJS.Require>();
  /** Chunks compiled without a usable cache: written when the process exits. */
  readonly #uncached: { readonly script: Script; readonly cacheFile: string }[] = [];
  readonly #cacheDir: string | undefined;
  /** Every chunk loaded and every other module a chunk required, in order (EDGESYNC_TRACE_LOADS). */
  readonly loads: string[] = [];
  /** The chunks whose code came from the cache. */
  readonly cacheHits: string[] = [];

  /** False in tests, which call writeCaches() themselves. */
  readonly writeCachesAtExit: boolean;
  /**
   * Names the caches of one command (`validate`): commands share chunks (the
   * command line, the manifest loader) but run different functions of them,
   * and a cache holds the functions of the run that wrote it.
   */
  readonly #command: string;

  constructor(cacheDir: string | undefined, options: { command?: string; writeCachesAtExit?: boolean } = {}) {
    this.#cacheDir = cacheDir;
    this.#command = options.command ?? '_';
    this.writeCachesAtExit = options.writeCachesAtExit ?? true;
  }

  /** The exports of the chunk at `file` (absolute), run on first use. */
  load(file: string): unknown {
    const known = this.#modules.get(file);
    if (known !== undefined) return known.exports;
    this.loads.push(file);
    const module = { exports: {} as unknown };
    this.#modules.set(file, module);
    const bytes = readFileSync(file);
    // The bundle's chunks are ASCII (scripts/bundle-cli.mjs): read as latin1, the same string, without
    // the UTF-8 decoding that took 6-12 ms for validate's chunks on Node 26.
    const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
    const cacheFile = this.#cacheFileOf(file);
    let cachedData: Buffer | undefined;
    if (cacheFile !== undefined) {
      try {
        cachedData = readFileSync(cacheFile);
      } catch {
        // not cached yet
      }
    }
    // On the chunk's first line, so that stack traces keep the chunk's line numbers.
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      ...(cachedData === undefined ? {} : { cachedData }),
    });
    if (cachedData !== undefined && script.cachedDataRejected !== true) this.cacheHits.push(file);
    else if (cacheFile !== undefined) {
      if (this.#uncached.length === 0 && this.writeCachesAtExit)
        process.once('exit', () => this.writeCaches());
      this.#uncached.push({ script, cacheFile });
    }
    const dir = dirname(file);
    const nodeRequire = this.#nodeRequireIn(dir);
    const require = (specifier: string): unknown => {
      if (specifier.startsWith('./')) return this.load(resolve(dir, specifier));
      this.loads.push(specifier);
      return nodeRequire(specifier);
    };
    const run = script.runInThisContext() as (
      exports: unknown,
      require: (specifier: string) => unknown,
      module: { exports: unknown },
      filename: string,
      dirname: string,
    ) => void;
    run.call(module.exports, module.exports, require, module, file, dir);
    return module.exports;
  }

  /** Node's require from a chunk's directory: one for all the chunks, which share it. */
  #nodeRequireIn(dir: string): NodeJS.Require {
    let nodeRequire = this.#nodeRequires.get(dir);
    if (nodeRequire === undefined) {
      nodeRequire = createRequire(join(dir, 'chunk.js'));
      this.#nodeRequires.set(dir, nodeRequire);
    }
    return nodeRequire;
  }

  /**
   * Chunk names carry a hash of their content (the two entries do not), and
   * the command, the size and the modification time are in the key too: V8 checks only a
   * cache's length against the source, and an edited chunk must not run
   * with the code of the old one.
   */
  #cacheFileOf(file: string): string | undefined {
    if (this.#cacheDir === undefined) return undefined;
    try {
      const { size, mtimeMs } = statSync(file);
      return join(this.#cacheDir, `${this.#command}-${basename(file)}-${size}-${Math.trunc(mtimeMs)}`);
    } catch {
      return undefined;
    }
  }

  /**
   * Writes the code cache of each chunk compiled without one: at exit, so that
   * it holds every function the command ran. Only a missing or rejected cache
   * is written, as Node does; a later command that runs other functions of the
   * same chunk compiles those itself.
   */
  writeCaches(): void {
    const written = new Set<string>();
    for (const { script, cacheFile } of this.#uncached.splice(0)) {
      // A temporary name, then rename: another edgesync starting now reads a whole cache or none.
      const partial = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
        renameSync(partial, cacheFile);
        written.add(basename(cacheFile));
      } catch {
        // A cache that cannot be written costs the next run its compile time, nothing else.
      }
    }
    if (written.size > 0 && this.#cacheDir !== undefined) pruneCaches(this.#cacheDir, written);
  }
}

/**
 * Keeps `dir` within MAX_CACHE_FILES: past it, removes the files written
 * longest ago (a cache still in use is written again by the next run that
 * misses it), down to PRUNED_TO, never one of `keep`. Only a run that wrote
 * a cache lists the directory: a run that hit every cache does no more I/O.
 */
export function pruneCaches(dir: string, keep: ReadonlySet<string>): void {
  try {
    const names = readdirSync(dir);
    if (names.length <= MAX_CACHE_FILES) return;
    const aged: { readonly name: string; readonly writtenAt: number }[] = [];
    for (const name of names) {
      if (keep.has(name)) continue;
      try {
        aged.push({ name, writtenAt: lstatSync(join(dir, name)).mtimeMs });
      } catch {
        // removed meanwhile by another run
      }
    }
    aged.sort((a, b) => a.writtenAt - b.writtenAt);
    for (const { name } of aged.slice(0, Math.max(0, names.length - PRUNED_TO))) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // removed meanwhile by another run
      }
    }
  } catch {
    // A directory that cannot be listed is left as it is.
  }
}

/**
 * Where the chunks' code caches live: in Node's compile cache directory
 * (`nodeCacheDir`, module.getCompileCacheDir() on Node 22.8+, whose name
 * carries Node's version, V8's flags and the user), or, without one (Node 20),
 * beside where it would be (NODE_COMPILE_CACHE, or node-compile-cache in the
 * OS temp directory) in a directory per Node version, architecture and user.
 * None when NODE_DISABLE_COMPILE_CACHE is set, or when the directory is not
 * this user's alone: a cache is code that runs, and another user must not be
 * able to plant one.
 */
export function chunkCacheDir(env: NodeJS.ProcessEnv, nodeCacheDir: string | undefined): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE !== undefined && env.NODE_DISABLE_COMPILE_CACHE !== '') return undefined;
  const uid = process.getuid?.();
  let base: string;
  let dir: string;
  if (nodeCacheDir !== undefined) {
    base = nodeCacheDir;
    dir = join(base, 'edgesync');
  } else {
    base =
      env.NODE_COMPILE_CACHE !== undefined && env.NODE_COMPILE_CACHE !== ''
        ? resolve(env.NODE_COMPILE_CACHE)
        : join(tmpdir(), 'node-compile-cache');
    dir = join(base, `edgesync-${process.version}-${process.arch}-${uid ?? 'user'}`);
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (uid === undefined) return dir;
    // Ours alone, and inside a directory nobody else can rename it out of.
    const stats = lstatSync(dir);
    if (!stats.isDirectory() || stats.uid !== uid || (stats.mode & 0o077) !== 0) return undefined;
    const parent = lstatSync(base);
    if (!parent.isDirectory() || (parent.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}
