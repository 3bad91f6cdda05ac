import { isAscii } from 'node:buffer';
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';

/**
 * Loads the CommonJS chunks of the `edgesync` bundle (dist/cli/chunks/, made
 * by scripts/bundle-cli.mjs) with a V8 code cache written after the command
 * ran (issue 18: start time).
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
    for (const { script, cacheFile } of this.#uncached.splice(0)) {
      // A temporary name, then rename: another edgesync starting now reads a whole cache or none.
      const partial = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
        renameSync(partial, cacheFile);
      } catch {
        // A cache that cannot be written costs the next run its compile time, nothing else.
      }
    }
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
