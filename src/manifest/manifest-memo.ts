import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import type { FileFacts } from './check-entries.js';
import type { DesiredEntry } from './desired-state.js';
import type { ManifestError } from './manifest-error.js';
import type { ManifestFile } from './manifest-files.js';
import { MAX_MANIFEST_BYTES } from './parse-manifest-file.js';
import { readBoundedFile } from './read-bounded-file.js';

/** What one manifest file gave a load: everything but the checks across files. */
export interface LoadedFile {
  /** Parse and schema errors, the checks of each entry alone, and unresolvable references. */
  readonly errors: readonly ManifestError[];
  /** Its names and references by name, for the checks across files. */
  readonly facts: FileFacts;
  /** Its valid entries, built (references resolved). */
  readonly built: readonly DesiredEntry[];
  /**
   * Whether building its entries resolved references (a CA PEM or secret
   * file, the environment), which can change without its bytes changing.
   */
  readonly resolvedReferences: boolean;
}

/** What ManifestMemo.lookup found: the file's last load when unchanged, and how to remember a new one. */
export interface MemoLookup {
  readonly loaded?: LoadedFile;
  readonly remember: (loaded: LoadedFile) => void;
}

interface Remembered {
  /** Real path and sha256 of the bytes: an edit, or a symlink swapped to another target (git-sync, a ConfigMap), changes it. */
  readonly identity: string;
  readonly loaded: LoadedFile;
}

/**
 * The daemon's memory of each manifest file between loads: a file
 * whose bytes and real path are unchanged gives the same entries, so a change to
 * one file of many re-parses that file only. The checks across files still
 * run over the whole set every time. A file no longer walked is forgotten
 * (deleted, renamed); `forgetResolvedReferences` forgets the files whose
 * entries resolved references, for the reload on SIGHUP and the resync,
 * which also re-read the files that entries reference (a CA PEM, a secret
 * file) and that raise no event of their own.
 *
 * The identity reads each file once more per load (the content decides, not
 * timestamps whose granularity can hide a quick second write); a swap of a
 * whole tree (git-sync, a ConfigMap's `..data`) changes every real path, so
 * nothing of the old tree is kept and its referenced files are read again.
 */
export class ManifestMemo {
  #files = new Map<string, Remembered>();

  /** Files remembered now. */
  get size(): number {
    return this.#files.size;
  }

  /**
   * Forgets the files whose entries resolved references, for the resync and
   * the reload on SIGHUP: the files they reference raise no event of their
   * own. A file whose entries read nothing else (rules, reserved addresses)
   * gives the same entries for the same bytes, which every lookup compares:
   * keeping it spares a resync of 100,000 rules building all of them again
   * while the last valid desired state is still held (the daemon's peak).
   */
  forgetResolvedReferences(): void {
    for (const [key, remembered] of this.#files)
      if (remembered.loaded.resolvedReferences) this.#files.delete(key);
  }

  /**
   * What `file` gave last time if it is unchanged since, or else what `load`
   * gives now (remembered for next time). Files not passed to `take` between
   * two `retain` calls are forgotten by the second.
   */
  async take(file: ManifestFile, load: () => Promise<LoadedFile>): Promise<LoadedFile> {
    const found = await this.lookup(file);
    if (found.loaded !== undefined) return found.loaded;
    const loaded = await load();
    found.remember(loaded);
    return loaded;
  }

  /**
   * `take` in two steps, for a loader that looks files up ahead of loading
   * them: what `file` gave last time if it is unchanged since, or else a
   * `remember` to call with what it gives now.
   */
  async lookup(file: ManifestFile): Promise<MemoLookup> {
    const key = `${file.display}\u0000${file.absolute}`;
    const identity = await identityOf(file.absolute);
    const remembered = this.#files.get(key);
    if (identity !== undefined && remembered?.identity === identity) {
      return { loaded: remembered.loaded, remember: () => undefined };
    }
    return {
      remember: (loaded) => {
        if (identity === undefined) this.#files.delete(key);
        else this.#files.set(key, { identity, loaded });
      },
    };
  }

  /** Forgets every file but `files`: the ones the last walk found. */
  retain(files: readonly ManifestFile[]): void {
    const kept = new Set(files.map((file) => `${file.display}\u0000${file.absolute}`));
    for (const key of this.#files.keys()) if (!kept.has(key)) this.#files.delete(key);
  }
}

/**
 * Real path and sha256 of a regular file within the loader's size cap;
 * undefined for anything else (a FIFO, a device, a file gone or too large),
 * which is then loaded every time and reported by the loader as it is. Read
 * as the loader reads (non-blocking, bounded), so nothing here can hang.
 */
async function identityOf(path: string): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    const read = await readBoundedFile(real, MAX_MANIFEST_BYTES);
    if (!read.ok) return undefined;
    return `${real}\u0000${createHash('sha256').update(read.bytes).digest('hex')}`;
  } catch {
    return undefined;
  }
}
