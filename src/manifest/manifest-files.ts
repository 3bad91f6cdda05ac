import type { Stats } from 'node:fs';
import { opendir, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ManifestError } from './manifest-error.js';
import { describeType } from './read-bounded-file.js';
import type { FileLocation } from './source-location.js';

/** One manifest file to read, and the root its `{ file }` references may not leave. */
export interface ManifestFile {
  /** As given on the command line, or joined onto the directory given: what messages show. */
  readonly display: string;
  readonly absolute: string;
  /** Real path of the directory given, or of the file's directory when a file was given. */
  readonly root: string;
  /**
   * Found by walking a directory (not named on the command line) without
   * `--allow-outside-root`: its real path must stay inside `root` when it is
   * read too, so a symlink swapped in after the walk cannot leave the root.
   */
  readonly confined: boolean;
}

/** Something the walk skipped on purpose and a person should hear about. */
export interface ManifestWarning {
  /** Display path of what was skipped. */
  readonly file: string;
  readonly message: string;
}

/** The manifest files below the paths given, and what the walk read to find them. */
export interface ManifestTree {
  /** In merge order: by path as given, then by name at each level. */
  readonly files: readonly ManifestFile[];
  /** Real paths of every directory read, once each: what the daemon's watcher watches. */
  readonly directories: readonly string[];
  /** Display paths of the directories that held manifest files, in walk order. */
  readonly manifestDirectories: readonly string[];
  readonly errors: readonly ManifestError[];
  readonly warnings: readonly ManifestWarning[];
}

export interface WalkOptions {
  /** Base for relative paths. */
  readonly cwd: string;
  /** Lets the walk follow symlinks out of the directory given. @default false */
  readonly allowOutsideRoot?: boolean;
  /** Directories the walk reads before it stops with one error. @default MAX_WALKED_DIRECTORIES */
  readonly maxDirectories?: number;
}

/** More directories than any manifest repository holds: a link to `/` taken with --allow-outside-root. */
export const MAX_WALKED_DIRECTORIES = 10_000;

const MANIFEST_EXTENSIONS = ['.yaml', '.yml'];

/** Directory names never walked into: dependencies and VCS data hold YAML that is not ours. */
const SKIPPED_DIRECTORIES = new Set(['node_modules']);

/**
 * Hidden entries (`.git`, `.github`; also ConfigMap's `..data`, whose files
 * are reached through the top-level symlinks), and what editors leave beside
 * the files they edit (`.#x`, `x~`, `x.swp`, `#x#`).
 */
function isIgnoredName(name: string): boolean {
  return (
    name.startsWith('.') ||
    name.startsWith('#') ||
    name.endsWith('~') ||
    /\.(swp|swo|swx|bak|orig|tmp)$/i.test(name)
  );
}

export function isManifestName(name: string): boolean {
  const lower = name.toLowerCase();
  return MANIFEST_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

export function isInside(root: string, path: string): boolean {
  const fromRoot = relative(root, path);
  return fromRoot === '' || (fromRoot !== '..' && !fromRoot.startsWith(`..${sep}`) && !isAbsolute(fromRoot));
}

interface Walk {
  readonly allowOutsideRoot: boolean;
  readonly maxDirectories: number;
  readonly files: ManifestFile[];
  readonly directories: string[];
  readonly manifestDirectories: Set<string>;
  readonly errors: ManifestError[];
  readonly warnings: ManifestWarning[];
  /** `dev:ino` of every directory read, to display path: what stops loops and repeats. */
  readonly seenDirectories: Map<string, string>;
  /** Real paths of the files taken, to display path. */
  readonly seenFiles: Map<string, string>;
  tooManyReported: boolean;
}

/**
 * The one walk of a manifest tree, shared by every command and the daemon.
 * Files named on the command line are taken as given (whatever their
 * extension); directories are walked for `.yaml`/`.yml` files, sorted by
 * name at each level so the merge order never depends on the file system.
 * The walk reads directories entry by entry (a million-entry directory costs
 * time, not memory), follows a symlink only into a place not read yet (a
 * loop or a second link to a directory is skipped with a warning), never
 * leaves the directory given unless `allowOutsideRoot` (a manifest or a
 * directory linked from outside is an error, and its content is never read),
 * and skips hidden directories and `node_modules`.
 */
export async function walkManifestTree(
  paths: readonly string[],
  options: WalkOptions,
): Promise<ManifestTree> {
  const walk: Walk = {
    allowOutsideRoot: options.allowOutsideRoot ?? false,
    maxDirectories: options.maxDirectories ?? MAX_WALKED_DIRECTORIES,
    files: [],
    directories: [],
    manifestDirectories: new Set(),
    errors: [],
    warnings: [],
    seenDirectories: new Map(),
    seenFiles: new Map(),
    tooManyReported: false,
  };
  for (const given of paths) {
    const absolute = resolve(options.cwd, given);
    let info: Stats;
    let real: string;
    try {
      [info, real] = await Promise.all([stat(absolute), realpath(absolute)]);
    } catch (error) {
      walk.errors.push(
        new ManifestError('file_not_found', at(given), '', 'no such file or directory', { cause: error }),
      );
      continue;
    }
    if (info.isDirectory()) {
      await walkDirectory(walk, { real, display: given, root: real, info });
    } else if (!walk.seenFiles.has(real)) {
      walk.seenFiles.set(real, given);
      // Named by the user: read wherever it points, but only if it is a regular file (checked on read).
      walk.files.push({ display: given, absolute, root: await realpath(dirname(absolute)), confined: false });
      addManifestDirectory(walk, dirname(given));
    }
  }
  return {
    files: walk.files,
    directories: walk.directories,
    manifestDirectories: [...walk.manifestDirectories],
    errors: walk.errors,
    warnings: walk.warnings,
  };
}

interface DirectoryToWalk {
  /** Real path. */
  readonly real: string;
  readonly display: string;
  /** Real path of the directory given on the command line. */
  readonly root: string;
  readonly info: Stats;
}

async function walkDirectory(walk: Walk, directory: DirectoryToWalk): Promise<void> {
  const identity = `${directory.info.dev}:${directory.info.ino}`;
  const earlier = walk.seenDirectories.get(identity);
  if (earlier !== undefined) {
    walk.warnings.push({
      file: directory.display,
      message:
        earlier === directory.display
          ? 'directory given twice; read once'
          : `symlink to a directory already read (${earlier}); skipped, so no loop or file is read twice`,
    });
    return;
  }
  if (walk.directories.length >= walk.maxDirectories) {
    if (!walk.tooManyReported) {
      walk.tooManyReported = true;
      walk.errors.push(
        new ManifestError(
          'too_many_directories',
          at(directory.display),
          '',
          `more than ${walk.maxDirectories} directories below the paths given; name the manifest directories instead`,
        ),
      );
    }
    return;
  }
  walk.seenDirectories.set(identity, directory.display);
  walk.directories.push(directory.real);

  const names = await readEntryNames(directory.real);
  if (names === undefined) return;
  for (const { name, kind } of names) {
    const display = join(directory.display, name);
    const path = join(directory.real, name);
    if (kind === 'directory') {
      const info = await stat(path).catch(() => undefined);
      if (info?.isDirectory()) await walkDirectory(walk, { real: path, display, root: directory.root, info });
      continue;
    }
    if (kind === 'file') {
      takeFile(walk, { display, absolute: path, real: path, root: directory.root }, directory.display);
      continue;
    }
    if (kind === 'special') {
      walk.errors.push(notRegular(display, 'not a regular file'));
      continue;
    }
    // A symlink: where does it lead?
    let real: string;
    let info: Stats;
    try {
      real = await realpath(path);
      info = await stat(real);
    } catch (error) {
      if (isManifestName(name)) {
        walk.errors.push(
          new ManifestError('file_not_found', at(display), '', 'broken symlink: its target does not exist', {
            cause: error,
          }),
        );
      }
      continue;
    }
    const relevant = info.isDirectory() || isManifestName(name);
    if (!relevant) continue;
    if (!walk.allowOutsideRoot && !isInside(directory.root, real)) {
      walk.errors.push(
        new ManifestError(
          'path_outside_root',
          at(display),
          '',
          `symlink to ${info.isDirectory() ? 'a directory' : 'a file'} outside the manifest root (the directory given on the command line); not read. Pass --allow-outside-root to follow it`,
        ),
      );
      continue;
    }
    if (info.isDirectory()) {
      await walkDirectory(walk, { real, display, root: directory.root, info });
    } else if (info.isFile()) {
      takeFile(walk, { display, absolute: path, real, root: directory.root }, directory.display);
    } else {
      walk.errors.push(notRegular(display, `symlink to ${describeType(info)}, not a regular file`));
    }
  }
}

type EntryKind = 'directory' | 'file' | 'symlink' | 'special';

/**
 * The entries of one directory worth a look, sorted by name. Read through
 * `opendir`, entry by entry: only manifest names, directories and symlinks
 * are kept, so a directory of a million other files costs no memory.
 */
async function readEntryNames(
  directory: string,
): Promise<{ readonly name: string; readonly kind: EntryKind }[] | undefined> {
  const kept: { name: string; kind: EntryKind }[] = [];
  let handle: Awaited<ReturnType<typeof opendir>>;
  try {
    handle = await opendir(directory, { bufferSize: 256 });
  } catch {
    // Vanished or unreadable since it was listed; the next walk sees the settled tree.
    return undefined;
  }
  try {
    for await (const entry of handle) {
      const name = entry.name;
      if (isIgnoredName(name)) continue;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(name)) kept.push({ name, kind: 'directory' });
      } else if (entry.isSymbolicLink()) {
        if (!SKIPPED_DIRECTORIES.has(name)) kept.push({ name, kind: 'symlink' });
      } else if (isManifestName(name)) {
        kept.push({ name, kind: entry.isFile() ? 'file' : 'special' });
      }
    }
  } catch {
    return undefined;
  }
  return kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function takeFile(
  walk: Walk,
  file: { display: string; absolute: string; real: string; root: string },
  directoryDisplay: string,
): void {
  const earlier = walk.seenFiles.get(file.real);
  if (earlier !== undefined) {
    walk.warnings.push({ file: file.display, message: `same file as ${earlier}; read once` });
    return;
  }
  walk.seenFiles.set(file.real, file.display);
  walk.files.push({
    display: file.display,
    absolute: file.absolute,
    root: file.root,
    confined: !walk.allowOutsideRoot,
  });
  addManifestDirectory(walk, directoryDisplay);
}

function addManifestDirectory(walk: Walk, display: string): void {
  walk.manifestDirectories.add(display);
}

function notRegular(display: string, detail: string): ManifestError {
  return new ManifestError('not_regular_file', at(display), '', `${detail}; manifests must be regular files`);
}

/** The file or directory as a whole: no line or column is made up for it. */
function at(file: string): FileLocation {
  return { file };
}
