import type { Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import type { Logger } from 'pino';

export interface ManifestWatcherOptions {
  /** Manifest files and directories, as given on the command line. */
  readonly paths: readonly string[];
  /** Base for relative paths. */
  readonly cwd: string;
  /** Something that may change the desired state happened; the caller debounces. */
  readonly onChange: (change: { readonly event: string; readonly path: string }) => void;
  readonly logger: Logger;
}

const MANIFEST_FILE = /\.ya?ml$/;

/**
 * Watches manifest files and directories for files that appear, change, are
 * renamed or vanish. Besides the paths themselves it watches their parent
 * directories (one level), so that a path that is a symlink swapped to a new
 * target (git-sync's `--link`) or a directory replaced wholesale is noticed:
 * every event, and every `refresh()` (the resync timer calls it), compares
 * each path's real path and inode with the last seen and re-watches the ones
 * that moved. Kubernetes ConfigMap mounts swap a `..data` symlink inside the
 * directory; entries starting with `..` are therefore watched although other
 * hidden entries (editor swap files) are ignored.
 */
export class ManifestWatcher {
  readonly #options: ManifestWatcherOptions;
  readonly #log: Logger;
  readonly #roots: readonly string[];
  #identities = new Map<string, string>();
  #rootWatcher: FSWatcher | null = null;
  #parentWatcher: FSWatcher | null = null;
  #refreshing: Promise<boolean> = Promise.resolve(false);
  #closed = false;

  private constructor(options: ManifestWatcherOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'manifest-watcher' });
    this.#roots = [...new Set(options.paths.map((path) => resolve(options.cwd, path)))];
  }

  static async start(options: ManifestWatcherOptions): Promise<ManifestWatcher> {
    const watcher = new ManifestWatcher(options);
    watcher.#identities = await watcher.#readIdentities();
    watcher.#parentWatcher = watcher.#watchParents();
    watcher.#rootWatcher = watcher.#watchRoots();
    await Promise.all([ready(watcher.#parentWatcher), ready(watcher.#rootWatcher)]);
    return watcher;
  }

  /**
   * Re-resolves every path; re-watches and reports a change when one now
   * points elsewhere. Resolves true when something moved.
   */
  refresh(): Promise<boolean> {
    this.#refreshing = this.#refreshing.then(
      () => this.#refreshNow(),
      () => this.#refreshNow(),
    );
    return this.#refreshing;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([this.#rootWatcher?.close(), this.#parentWatcher?.close()]);
    this.#rootWatcher = null;
    this.#parentWatcher = null;
  }

  async #refreshNow(): Promise<boolean> {
    if (this.#closed) return false;
    const identities = await this.#readIdentities();
    const moved = this.#roots.filter((root) => identities.get(root) !== this.#identities.get(root));
    this.#identities = identities;
    if (moved.length === 0 || this.#closed) return false;
    this.#log.info({ paths: moved }, 'watched path now points elsewhere; watching it again');
    // Both: a parent reached through a symlink (git-sync's /git/current) moved too.
    const previous = [this.#rootWatcher, this.#parentWatcher];
    this.#rootWatcher = this.#watchRoots();
    this.#parentWatcher = this.#watchParents();
    await Promise.all(previous.map((watcher) => watcher?.close()));
    await Promise.all([ready(this.#rootWatcher), ready(this.#parentWatcher)]);
    for (const path of moved) this.#options.onChange({ event: 'retarget', path });
    return true;
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

  #watchRoots(): FSWatcher {
    const watcher = watch([...this.#roots], {
      ignoreInitial: true,
      followSymlinks: true,
      ignorePermissionErrors: true,
      ignored: (path, stats) => this.#ignored(path, stats),
    });
    watcher.on('all', (event, path) => {
      if (isRelevant(event, path)) this.#report(event, path);
    });
    watcher.on('error', (err) => this.#log.warn({ err }, 'watch error'));
    return watcher;
  }

  /** One level of each path's parent, filtered to the watched names: renames and swaps of the paths themselves. */
  #watchParents(): FSWatcher {
    const parents = [...new Set(this.#roots.map((root) => dirname(root)))];
    const watched = new Set(this.#roots);
    const watcher = watch(parents, {
      ignoreInitial: true,
      followSymlinks: false,
      depth: 0,
      ignorePermissionErrors: true,
      ignored: (path) => !parents.includes(path) && !watched.has(path),
    });
    watcher.on('all', () => void this.refresh());
    // A symlink renamed over another may produce no chokidar event, only the raw one.
    watcher.on('raw', () => void this.refresh());
    watcher.on('error', (err) => this.#log.warn({ err }, 'watch error'));
    return watcher;
  }

  #ignored(path: string, stats?: Stats): boolean {
    if (this.#roots.includes(path)) return false;
    const name = basename(path);
    if (name.startsWith('..')) return false;
    if (name.startsWith('.') || name === 'node_modules') return true;
    return stats?.isFile() === true && !MANIFEST_FILE.test(name);
  }

  #report(event: string, path: string): void {
    if (this.#closed) return;
    this.#log.debug({ event, path }, 'manifest change');
    this.#options.onChange({ event, path });
    void this.refresh();
  }
}

/** Manifest files, directories that may hold them, and Kubernetes' `..data` swaps; not editor droppings. */
function isRelevant(event: string, path: string): boolean {
  const name = basename(path);
  if (name.startsWith('..')) return true;
  if (name.startsWith('.')) return false;
  if (event === 'addDir' || event === 'unlinkDir') return true;
  return MANIFEST_FILE.test(name);
}

function ready(watcher: FSWatcher): Promise<void> {
  return new Promise((resolve) => watcher.once('ready', () => resolve()));
}
