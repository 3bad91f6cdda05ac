import { type FSWatcher, watch } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { isManifestName, walkManifestTree } from '../manifest/manifest-files.js';

export interface ManifestWatcherOptions {
  /** Manifest files and directories, as given on the command line. */
  readonly paths: readonly string[];
  /** Base for relative paths. */
  readonly cwd: string;
  /** Watch directories that symlinks outside the paths given lead to, as the loader reads them. @default false */
  readonly allowOutsideRoot?: boolean;
  /** Something that may change the desired state happened; the caller debounces. */
  readonly onChange: (change: { readonly event: string; readonly path: string }) => void;
  readonly logger: Logger;
}

/** Milliseconds during which events on one manifest path make one report. */
const REPORT_COALESCE_MS = 25;

/** Milliseconds from an event that may change the tree to the walk that checks it: a burst makes one walk. */
const REFRESH_DELAY_MS = 100;

/** Entries checked at once with lstat after events; past that, a burst is settled by one walk. */
const MAX_ENTRY_CHECKS = 16;

/**
 * Errors of `fs.watch` that say the system's watches are used up, not that
 * the directory is gone: ENOSPC (inotify's max_user_watches) and EMFILE
 * (its max_user_instances, or open files).
 */
const WATCH_LIMIT_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EMFILE']);

/** A directory the walk reads but no watch covers: its changes arrive with the next resync. */
export interface UnwatchedDirectory {
  /** Real path. */
  readonly directory: string;
  /** What `fs.watch` threw (`ENOSPC`, `EMFILE`, `EACCES`, …). */
  readonly code: string;
}

/** What the watcher covers now, for `/status` and `/readyz`. */
export interface WatchCoverage {
  readonly watchedDirectories: number;
  readonly unwatchedDirectories: readonly UnwatchedDirectory[];
  /**
   * Why the daemon cannot count as ready while this lasts: some directories
   * are unwatched because the system's watches are used up. Null otherwise
   * (a directory gone since the walk is settled by the next walk).
   */
  readonly notReadyReason: string | null;
}

/** Hidden entries and what editors leave beside the files they edit; never a reason to reload. */
function isNoise(name: string): boolean {
  if (name.startsWith('..')) return false;
  return (
    name.startsWith('.') ||
    name.startsWith('#') ||
    name.endsWith('~') ||
    /\.(swp|swo|swx|bak|orig|tmp)$/i.test(name)
  );
}

/**
 * Watches the directories that the loader reads, and nothing else: the set
 * comes from the same walk (`walkManifestTree`), so a symlink loop, a second
 * link to a directory, a link to `/` or out of the root is watched at most
 * once or not at all, exactly as it is read. Each directory is one
 * non-recursive `fs.watch` (one inotify watch): nothing is kept per entry, so
 * a directory of a million files costs no memory here (chokidar, which this
 * replaces, read every directory listing whole and remembered every name, and
 * followed symlink loops without end).
 *
 * A change to a manifest-named entry is reported at once; a directory or
 * symlink that appears, vanishes or is swapped makes the watcher walk again
 * (one walk at a time, bursts coalesced) and report when the directories or
 * files read changed. Besides the tree it watches the parent of every path
 * given and of every symlink above it, so a path swapped to a new target
 * (git-sync's `--link`, `/git/current`) or a directory replaced wholesale is
 * noticed: each walk compares each path's real path and inode with the last
 * seen and reports `retarget`. Kubernetes ConfigMap mounts swap a `..data`
 * symlink inside the directory; entries starting with `..` are therefore
 * watched although other hidden entries (editor swap files) are ignored.
 */
export class ManifestWatcher {
  readonly #options: ManifestWatcherOptions;
  readonly #log: Logger;
  readonly #roots: readonly string[];
  #identities = new Map<string, string>();
  /** Tree directories and parents being watched, by real path. */
  #watchers = new Map<string, FSWatcher>();
  /** Directories watched only as parents of the paths given (not read themselves): the names that matter there. */
  #parentOnly = new Map<string, ReadonlySet<string>>();
  /** The problems the last walk met: a link out of the root appearing or going is a change. */
  #treeSignature = '';
  /** Manifest paths with an event in the last few milliseconds: a write raises create, modify and close. */
  #pending = new Map<string, string>();
  #running: Promise<unknown> = Promise.resolve();
  #queued: Promise<boolean> | null = null;
  #closed = false;
  #refreshTimer: NodeJS.Timeout | null = null;
  /** lstat calls in flight for events on non-manifest entries. */
  #entryChecks = 0;
  /** Directories wanted but not watched, with what fs.watch threw; each walk tries them again. */
  #unwatched = new Map<string, string>();

  /** Watches nothing until `start`: its coverage is empty until then. */
  constructor(options: ManifestWatcherOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'manifest-watcher' });
    this.#roots = [...new Set(options.paths.map((path) => resolve(options.cwd, path)))];
  }

  /** A watcher that has walked the tree once and watches it. */
  static async start(options: ManifestWatcherOptions): Promise<ManifestWatcher> {
    const watcher = new ManifestWatcher(options);
    await watcher.start();
    return watcher;
  }

  /** Walks the tree and starts watching what the walk reads; reports nothing for this first walk. */
  async start(): Promise<void> {
    await this.#refreshNow(false);
  }

  /**
   * Walks the tree again; re-watches and reports a change when a path now
   * points elsewhere or the directories or files read changed. Resolves true
   * when something moved. Calls made while a walk waits to start share it.
   */
  refresh(): Promise<boolean> {
    if (this.#queued !== null) return this.#queued;
    const next = this.#running.then(() => {
      this.#queued = null;
      return this.#refreshNow(true);
    });
    this.#queued = next;
    this.#running = next.catch((err: unknown) => this.#log.warn({ err }, 'manifest walk failed'));
    return next.catch(() => false);
  }

  /** Real paths of the directories watched now: the tree's and the parents'. */
  watchedDirectories(): string[] {
    return [...this.#watchers.keys()];
  }

  /** What is watched and what could not be, as of the last walk (each resync walks again). */
  coverage(): WatchCoverage {
    const unwatchedDirectories = [...this.#unwatched]
      .map(([directory, code]) => ({ directory, code }))
      .sort((a, b) => (a.directory < b.directory ? -1 : a.directory > b.directory ? 1 : 0));
    const exhausted = unwatchedDirectories.filter(({ code }) => WATCH_LIMIT_CODES.has(code));
    return {
      watchedDirectories: this.#watchers.size,
      unwatchedDirectories,
      notReadyReason:
        exhausted.length === 0
          ? null
          : `cannot watch ${exhausted.length} manifest ${exhausted.length === 1 ? 'directory' : 'directories'}: the system's file watches are used up (${exhausted[0]?.code}); raise fs.inotify.max_user_watches (docs/operations.md). Until then their changes are read on each resync`,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#refreshTimer !== null) clearTimeout(this.#refreshTimer);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
    await this.#running;
  }

  async #refreshNow(report: boolean): Promise<boolean> {
    if (this.#closed) return false;
    const [tree, identities, parents] = await Promise.all([
      walkManifestTree(this.#options.paths, {
        cwd: this.#options.cwd,
        allowOutsideRoot: this.#options.allowOutsideRoot ?? false,
      }),
      this.#readIdentities(),
      this.#parentDirectories(),
    ]);
    if (this.#closed) return false;
    const wanted = new Set([...tree.directories, ...parents.keys()]);
    for (const directory of tree.directories) parents.delete(directory);
    this.#parentOnly = parents;
    const moved = this.#roots.filter((root) => identities.get(root) !== this.#identities.get(root));
    // Manifest files report themselves; a link out of the root appearing or going does not.
    const signature = JSON.stringify(tree.errors.map((error) => `${error.code}:${error.file}`));
    const treeChanged = signature !== this.#treeSignature;
    this.#treeSignature = signature;
    const watched = new Set(this.#watchers.keys());
    const added = [...wanted].filter((directory) => !watched.has(directory));
    const removed = [...watched].filter((directory) => !wanted.has(directory));
    this.#identities = identities;
    this.#rewatch(wanted);
    if (!report) return false;
    if (moved.length > 0) {
      this.#log.info({ paths: moved }, 'watched path now points elsewhere; watching it again');
      for (const path of moved) this.#options.onChange({ event: 'retarget', path });
    } else if (added.length > 0 || removed.length > 0 || treeChanged) {
      // A directory (or a symlink to one) appeared or went: its manifests came or went with it.
      const [event, path] =
        added[0] !== undefined
          ? ['addDir', added[0]]
          : removed[0] !== undefined
            ? ['unlinkDir', removed[0]]
            : ['tree', this.#roots[0]];
      this.#options.onChange({ event, path: path ?? this.#options.cwd });
    }
    return moved.length > 0 || added.length > 0 || removed.length > 0 || treeChanged;
  }

  #rewatch(wanted: ReadonlySet<string>): void {
    for (const [directory, watcher] of this.#watchers) {
      if (wanted.has(directory)) continue;
      watcher.close();
      this.#watchers.delete(directory);
    }
    const before = this.#unwatched;
    this.#unwatched = new Map();
    for (const directory of wanted) {
      if (this.#watchers.has(directory)) continue;
      try {
        const watcher = watch(directory, { persistent: false }, (eventType, name) =>
          this.#onEvent(directory, eventType, name),
        );
        watcher.on('error', (err) => {
          // A watched directory removed, or the inotify watch dropped: the walk settles it.
          this.#log.debug({ err, directory }, 'watch error');
          watcher.close();
          this.#watchers.delete(directory);
          void this.refresh();
        });
        this.#watchers.set(directory, watcher);
      } catch (err) {
        // ENOSPC (inotify watches exhausted) or a directory gone since the walk: the resync still reads it.
        this.#unwatched.set(directory, String((err as { code?: unknown }).code ?? 'unknown'));
      }
    }
    const newly = [...this.#unwatched.keys()].filter((directory) => !before.has(directory));
    if (newly.length > 0) {
      this.#log.warn(
        {
          directories: newly,
          code: this.#unwatched.get(newly[0] as string),
          unwatched: this.#unwatched.size,
        },
        'cannot watch some directories; their changes arrive with the next resync',
      );
    } else if (before.size > 0 && this.#unwatched.size === 0) {
      this.#log.info({ watched: this.#watchers.size }, 'watching every directory again');
    }
  }

  #onEvent(directory: string, eventType: string, name: string | Buffer | null): void {
    if (this.#closed) return;
    if (name === null) {
      this.#scheduleRefresh();
      return;
    }
    const entry = String(name);
    const path = join(directory, entry);
    const names = this.#parentOnly.get(directory);
    if (names !== undefined) {
      if (!names.has(entry)) return;
      if (isManifestName(entry)) this.#reportEntry(path, eventType);
      if (eventType === 'rename') this.#scheduleRefresh();
      return;
    }
    if (isNoise(entry)) return;
    if (isManifestName(entry) || entry.startsWith('..')) {
      this.#reportEntry(path, eventType);
      // A manifest-named symlink may now lead elsewhere, and `..data` swaps a whole ConfigMap.
      if (eventType === 'rename') this.#scheduleRefresh();
      return;
    }
    // Something else appeared or vanished; only a directory or a symlink can change the tree.
    if (eventType !== 'rename' || this.#refreshTimer !== null) return;
    if (this.#entryChecks >= MAX_ENTRY_CHECKS) {
      // A burst (a million files created): one walk instead of an lstat each.
      this.#scheduleRefresh();
      return;
    }
    this.#entryChecks += 1;
    void lstat(path)
      .then(
        (info) => {
          if (info.isDirectory() || info.isSymbolicLink()) this.#scheduleRefresh();
        },
        () => this.#scheduleRefresh(),
      )
      .finally(() => {
        this.#entryChecks -= 1;
      });
  }

  /** One walk shortly after a burst of events, however many there were. */
  #scheduleRefresh(): void {
    if (this.#refreshTimer !== null || this.#closed) return;
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = null;
      void this.refresh();
    }, REFRESH_DELAY_MS);
  }

  /** Reports a manifest path once per burst of events, as added, changed or gone. */
  #reportEntry(path: string, eventType: string): void {
    const earlier = this.#pending.get(path);
    this.#pending.set(path, earlier === 'rename' ? earlier : eventType);
    if (earlier !== undefined) return;
    setTimeout(() => {
      const type = this.#pending.get(path) ?? eventType;
      this.#pending.delete(path);
      void lstat(path).then(
        () => this.#emit(type === 'change' ? 'change' : 'add', path),
        () => this.#emit('unlink', path),
      );
    }, REPORT_COALESCE_MS).unref();
  }

  #emit(event: string, path: string): void {
    if (this.#closed) return;
    this.#log.debug({ event, path }, 'manifest change');
    this.#options.onChange({ event, path });
  }

  /** Real path plus inode: a symlink swap changes the first, a directory replaced in place the second. */
  async #readIdentities(): Promise<Map<string, string>> {
    const entries = await Promise.all(
      this.#roots.map(async (root): Promise<[string, string]> => {
        try {
          const [real, info] = await Promise.all([realpath(root), stat(root)]);
          return [root, `${real}#${info.ino}`];
        } catch {
          return [root, 'missing'];
        }
      }),
    );
    return new Map(entries);
  }

  /**
   * The directories whose entries can swap a path given, by real path, with
   * the names that matter in each: the parent of each path, the parent of each
   * symlink above it, and the real directory of a file given through a
   * symlink. A path that does not exist yet (a first git-sync clone) is
   * covered by its nearest existing ancestor.
   */
  async #parentDirectories(): Promise<Map<string, Set<string>>> {
    const parents = new Map<string, Set<string>>();
    const add = async (directory: string, name: string): Promise<void> => {
      const real = await realpath(directory).catch(() => undefined);
      if (real === undefined) return;
      const names = parents.get(real) ?? new Set<string>();
      names.add(name);
      parents.set(real, names);
    };
    for (const root of this.#roots) {
      const target = await realpath(root).catch(() => undefined);
      const info = target === undefined ? undefined : await stat(target).catch(() => undefined);
      if (target !== undefined && info?.isFile()) await add(dirname(target), basename(target));
      let path = root;
      for (;;) {
        const parent = dirname(path);
        if (parent === path) break;
        const link = await lstat(path).catch(() => undefined);
        if (path === root || link === undefined || link.isSymbolicLink()) await add(parent, basename(path));
        path = parent;
      }
    }
    return parents;
  }
}
