import { randomBytes } from 'node:crypto';
import type { Dirent, Stats } from 'node:fs';
import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { type BoundedRead, describeType, readBoundedFile } from '../manifest/read-bounded-file.js';
import { ExportError } from './export-error.js';

/** Opens a directory that must not be a link: ELOOP or ENOTDIR when it is one (Linux says ENOTDIR). */
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** A new file only: fails on any existing name, a dangling link included, so no link is written through. */
const NEW_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** Tries at a fresh random temporary name before giving up (each clash needs a planted 64-bit guess). */
const TEMP_NAME_TRIES = 5;

export interface ExportDirectoryOptions {
  /**
   * Reach entries through `/proc/self/fd/N/NAME` of an open directory, which
   * resolves NAME in that directory whatever has been renamed or linked since
   * it was opened (openat, which Node lacks). Tests turn it off to check the
   * other way, plain paths checked component by component, which refuses a
   * planted link but not one swapped in while the export runs.
   * @default true where /proc/self/fd reaches the directory opened (Linux)
   */
  readonly descriptorPaths?: boolean;
}

/**
 * The output directory of an export. Everything the export reads, writes or
 * removes in it is reached one path component at a time from the directory
 * itself, opening each subdirectory without following a link; a component
 * that is a link (or not a directory) is refused with `export_unsafe_path`,
 * naming it. Files are written to a new temporary file (created exclusively,
 * random name) and renamed over their target, so no link planted at a name
 * is written through and a reader sees the old file or the new one.
 * The directory itself (`--out`) is the user's: a link there is followed.
 */
export class ExportDirectory {
  /** `--out` as the user gave it, resolved: messages name paths under it. */
  readonly path: string;
  readonly #descriptorPaths: boolean;
  /** Subdirectories opened so far, by relative path ('' is the root). */
  readonly #opened = new Map<string, FileHandle>();

  private constructor(path: string, root: FileHandle, descriptorPaths: boolean) {
    this.path = path;
    this.#descriptorPaths = descriptorPaths;
    this.#opened.set('', root);
  }

  /** Creates `path` if it is missing and opens it. */
  static async open(path: string, options: ExportDirectoryOptions = {}): Promise<ExportDirectory> {
    let root: FileHandle;
    try {
      await mkdir(path, { recursive: true });
      root = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
    } catch (cause) {
      throw new ExportError('export_write_failed', `cannot open ${path} as the output directory`, {
        path,
        cause,
      });
    }
    const descriptorPaths = options.descriptorPaths ?? (await reachesThroughProc(root));
    return new ExportDirectory(path, root, descriptorPaths);
  }

  /** Closes every directory it opened. */
  async close(): Promise<void> {
    const handles = [...this.#opened.values()];
    this.#opened.clear();
    await Promise.all(handles.map((handle) => handle.close().catch(() => undefined)));
  }

  /**
   * What is at `relative` (a `/`-separated path inside the directory),
   * without following a final link; undefined when it or a directory on the
   * way is missing. Throws `export_unsafe_path` for a directory on the way
   * that is a link or not a directory.
   */
  async entry(relative: string): Promise<Stats | undefined> {
    const { directory, name } = splitPath(relative);
    const parent = await this.#directory(directory, false);
    if (parent === undefined) return undefined;
    try {
      return await lstat(this.#inside(parent, directory, name));
    } catch (error) {
      if (isCode(error, 'ENOENT')) return undefined;
      throw error;
    }
  }

  /** Reads a regular file of at most `maxBytes` (read-bounded-file.ts); undefined when it is missing. */
  async read(relative: string, maxBytes: number): Promise<BoundedRead | undefined> {
    const { directory, name } = splitPath(relative);
    const parent = await this.#directory(directory, false);
    if (parent === undefined) return undefined;
    try {
      return await readBoundedFile(this.#inside(parent, directory, name), maxBytes);
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ELOOP')) return undefined;
      throw error;
    }
  }

  /** The regular files under the directory, as `/`-separated relative paths; links and what they lead to are not listed. */
  async listFiles(prefix = ''): Promise<string[]> {
    const parent = await this.#directory(prefix, false).catch(() => undefined);
    if (parent === undefined) return [];
    let entries: Dirent[];
    try {
      entries = await readdir(this.#inside(parent, prefix, '.'), { withFileTypes: true });
    } catch {
      return [];
    }
    const found: string[] = [];
    for (const entry of entries) {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) found.push(...(await this.listFiles(path)));
      else if (entry.isFile()) found.push(path);
    }
    return found;
  }

  /**
   * Writes `content` to `relative`: to a new temporary file beside it, then
   * renamed over it (the rename replaces a link at the target; it never
   * writes through one). Missing directories on the way are created.
   */
  async writeAtomically(relative: string, content: string): Promise<void> {
    const { directory, name } = splitPath(relative);
    const target = join(this.path, relative);
    const parent = await this.#directory(directory, true);
    if (parent === undefined) throw new Error(`${directory} was created but cannot be opened`);
    let temp: string | undefined;
    try {
      let file: FileHandle | undefined;
      for (let attempt = 1; file === undefined; attempt += 1) {
        const candidate = this.#inside(parent, directory, `.${name}.${randomBytes(8).toString('hex')}.tmp`);
        try {
          file = await open(candidate, NEW_FILE_FLAGS, 0o644);
          temp = candidate;
        } catch (error) {
          if (!isCode(error, 'EEXIST') || attempt === TEMP_NAME_TRIES) throw error;
        }
      }
      try {
        await file.writeFile(content);
      } finally {
        await file.close();
      }
      await rename(temp as string, this.#inside(parent, directory, name));
    } catch (cause) {
      if (temp !== undefined) await unlink(temp).catch(() => undefined);
      throw new ExportError('export_write_failed', `cannot write ${target}`, { path: target, cause });
    }
  }

  /** Removes the file at `relative` (a link there is removed, never what it leads to); nothing when it is missing. */
  async remove(relative: string): Promise<void> {
    const { directory, name } = splitPath(relative);
    const parent = await this.#directory(directory, false);
    if (parent === undefined) return;
    try {
      await unlink(this.#inside(parent, directory, name));
    } catch (error) {
      if (isCode(error, 'ENOENT')) return;
      throw new ExportError('export_write_failed', `cannot remove ${join(this.path, relative)}`, {
        path: join(this.path, relative),
        cause: error,
      });
    }
  }

  /** The path of `name` inside the opened directory at `relative`. */
  #inside(handle: FileHandle, relative: string, name: string): string {
    const base = this.#descriptorPaths ? `/proc/self/fd/${handle.fd}` : join(this.path, relative);
    return name === '.' ? base : `${base}/${name}`;
  }

  /**
   * The subdirectory at `relative`, opened component by component from the
   * root without following links, created when `create` (else undefined
   * when missing).
   */
  async #directory(relative: string, create: boolean): Promise<FileHandle | undefined> {
    const known = this.#opened.get(relative);
    if (known !== undefined) return known;
    const { directory, name } = splitPath(relative);
    const parent = await this.#directory(directory, create);
    if (parent === undefined) return undefined;
    const path = this.#inside(parent, directory, name);
    let handle: FileHandle;
    try {
      handle = await open(path, DIRECTORY_FLAGS);
    } catch (error) {
      if (!isCode(error, 'ENOENT')) return this.#refuse(relative, error);
      if (!create) return undefined;
      try {
        await mkdir(path, { mode: 0o755 });
        handle = await open(path, DIRECTORY_FLAGS);
      } catch (again) {
        return this.#refuse(relative, again);
      }
    }
    this.#opened.set(relative, handle);
    return handle;
  }

  /** A directory on the way that could not be opened as one: refused when it is a link or another kind of file. */
  async #refuse(relative: string, error: unknown): Promise<never> {
    const path = join(this.path, relative);
    const info = await lstat(path).catch(() => undefined);
    if (info !== undefined && !info.isDirectory()) {
      const what = info.isSymbolicLink() ? 'a symbolic link' : `${describeType(info)}, not a directory`;
      throw new ExportError(
        'export_unsafe_path',
        `${path} is ${what}; export writes and removes files only inside --out and follows no link (move it away, or choose another --out)`,
        { path, cause: error },
      );
    }
    throw new ExportError('export_write_failed', `cannot open ${path}`, { path, cause: error });
  }
}

/** `a/b/c.pem` → directory `a/b`, name `c.pem`; a name alone has directory ''. */
function splitPath(relative: string): { directory: string; name: string } {
  // Callers pass paths they made inside the directory; anything else is a bug, not a path to try.
  if (relative.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new Error(`not a plain relative path: ${JSON.stringify(relative)}`);
  }
  const directory = posix.dirname(relative);
  return { directory: directory === '.' ? '' : directory, name: posix.basename(relative) };
}

function isCode(error: unknown, code: string): boolean {
  return (error as { code?: unknown } | null)?.code === code;
}

/** Whether /proc/self/fd/N leads to the directory open as N (Linux's procfs; not macOS's /dev/fd). */
async function reachesThroughProc(handle: FileHandle): Promise<boolean> {
  try {
    const [viaProc, own] = await Promise.all([stat(`/proc/self/fd/${handle.fd}`), handle.stat()]);
    return viaProc.isDirectory() && viaProc.dev === own.dev && viaProc.ino === own.ino;
  } catch {
    return false;
  }
}
