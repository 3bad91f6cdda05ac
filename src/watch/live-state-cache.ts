import type { KindName } from '../kinds/kind-name.js';
import type { LiveObject, LiveObjectsByKind, LiveState } from '../kinds/live-state.js';

/** One kind as last read in full, then kept current by the daemon's own reads and writes. */
interface KindEntry {
  readonly objects: Map<string, LiveObject>;
  /** Module-only edges the manifests name that the service answered 404 for. */
  readonly missing: Set<string>;
  /** When the full read that filled this kind finished (clock milliseconds). */
  readonly fullReadAt: number;
  /** The cache's version when that read began. */
  readonly readStartedAtVersion: number;
  /** IDs in the order that read listed them (a listed kind's pages, newest first in the emulator). */
  readonly listed: readonly string[];
  /** Each listed ID's index in `listed`. */
  readonly position: ReadonlyMap<string, number>;
}

/**
 * What a full read of one kind found, and the cache's change counter when it
 * began: objects the daemon read or wrote after that moment keep the cache's
 * newer version (or absence) instead of the read's.
 */
export interface KindFullRead {
  readonly kind: KindName;
  readonly objects: readonly LiveObject[];
  readonly missingIds: readonly string[];
  readonly startedAtVersion: number;
  /** Clock milliseconds. */
  readonly finishedAt: number;
}

/** Where the cache stands, for `/status` and the metrics. */
export interface LiveStateCacheFacts {
  /** Every kind has been read in full and none was dropped since. */
  readonly complete: boolean;
  /** Kinds with no usable full read (never read, or dropped after a surprise). */
  readonly kindsToRead: readonly KindName[];
  /** Clock milliseconds of the oldest kind's last full read; null until every kind was read. */
  readonly oldestFullReadAt: number | null;
  readonly objects: number;
  /** Objects written by a request whose response the cache could not take in; re-read before the next plan. */
  readonly staleObjects: number;
}

/**
 * What the cache holds, for everything in the daemon but its one writer
 * (`LiveCacheWriter`): the reconciler plans from `snapshot()`, `/status`
 * shows `facts()`, and nothing that holds this view can change the cache.
 */
export interface LiveCacheView {
  /** Kinds that have no usable full read. */
  kindsToRead(): KindName[];
  /** Objects to read again before the next plan, by kind. */
  staleIds(): Map<KindName, string[]>;
  knows(kind: KindName, id: string): boolean;
  get(kind: KindName, id: string): LiveObject | undefined;
  /** Everything cached, as the planner takes it. */
  snapshot(): LiveState;
  facts(): LiveStateCacheFacts;
}

/**
 * The daemon's live-state cache, after a Kubernetes informer's store:
 * filled by full reads, then updated by every targeted read and every write
 * the daemon makes, so that a change is planned without reading the whole
 * account. Only `LiveCacheWriter` holds it as this class; everything else
 * gets a `LiveCacheView`.
 *
 * The planner gets a `LiveState` from `snapshot()`, never the cache itself.
 * A kind is either held whole (from a finished full read) or not at all:
 * a background read in progress never shows, so nothing is pruned from half a
 * listing, and a dropped kind makes `complete` false until it is read again.
 */
export class LiveStateCache implements LiveCacheView {
  /** The registry's kinds, in its order: the kinds a complete cache holds. */
  readonly #kindNames: readonly KindName[];
  readonly #kinds = new Map<KindName, KindEntry>();
  /** Bumped by every change the daemon saw first-hand. */
  #version = 0;
  /** When each object last changed first-hand, by kind: a full read begun before that must not undo it. */
  readonly #touched = new Map<KindName, Map<string, number>>();
  /** Versions at which the full reads in progress began, by kind. */
  readonly #readsInProgress = new Map<KindName, number[]>();
  /** Objects a write changed in a way its response does not show (module writes): kind by ID. */
  readonly #stale = new Map<string, KindName>();

  /** `kinds`: the names of the registry's kinds, in its order. */
  constructor(kinds: readonly KindName[]) {
    this.#kindNames = kinds;
  }

  kindsToRead(): KindName[] {
    return this.#kindNames.filter((kind) => !this.#kinds.has(kind));
  }

  /** A full read of `kind` begins; pass the answer to `acceptFullRead` or `abandonFullRead`. */
  beginFullRead(kind: KindName): number {
    const started = this.#version;
    this.#readsInProgress.set(kind, [...(this.#readsInProgress.get(kind) ?? []), started]);
    return started;
  }

  abandonFullRead(kind: KindName, startedAtVersion: number): void {
    this.#endRead(kind, startedAtVersion);
  }

  /**
   * Takes a finished full read of one kind. Objects touched since the read
   * began keep the cache's version: a write's response is newer than a page
   * read before it. A read older than the one already held is dropped.
   */
  acceptFullRead(read: KindFullRead): void {
    this.#endRead(read.kind, read.startedAtVersion);
    const previous = this.#kinds.get(read.kind);
    if (previous !== undefined && previous.readStartedAtVersion > read.startedAtVersion) return;
    const objects = new Map<string, LiveObject>();
    for (const object of read.objects) objects.set(object.id, object);
    const missing = new Set(read.missingIds);
    for (const [id, touchedAt] of this.#touched.get(read.kind) ?? []) {
      if (touchedAt <= read.startedAtVersion) continue;
      const held = previous?.objects.get(id);
      if (held === undefined) objects.delete(id);
      else objects.set(id, held);
      if (previous?.missing.has(id) === true) missing.add(id);
      else missing.delete(id);
    }
    const listed = read.objects.map((object) => object.id);
    this.#kinds.set(read.kind, {
      objects,
      missing,
      fullReadAt: read.finishedAt,
      readStartedAtVersion: read.startedAtVersion,
      listed,
      position: new Map(listed.map((id, index) => [id, index])),
    });
    this.#forgetOldTouches(read.kind);
  }

  /** Whether a full read of `kind` found anything other than what the cache holds (a full read's way of seeing drift). */
  differs(kind: KindName, objects: readonly LiveObject[], missingIds: readonly string[]): boolean {
    const entry = this.#kinds.get(kind);
    if (entry === undefined) return true;
    if (entry.objects.size !== objects.length) return true;
    for (const object of objects)
      if (entry.objects.get(object.id)?.fingerprint !== object.fingerprint) return true;
    return missingIds.some((id) => !entry.missing.has(id));
  }

  /**
   * One object of a list page of a full read begun at `startedAtVersion`,
   * taken in at once rather than when the listing ends, so a changed object
   * is seen within one cycle. Unless the daemon changed it since the read
   * began (its own answer is newer). True when it differed from the cache.
   */
  takeInListed(object: LiveObject, startedAtVersion: number): boolean {
    const entry = this.#kinds.get(object.kind);
    if (entry === undefined) return false;
    if ((this.#touched.get(object.kind)?.get(object.id) ?? 0) > startedAtVersion) return false;
    if (entry.objects.get(object.id)?.fingerprint === object.fingerprint) return false;
    entry.objects.set(object.id, object);
    entry.missing.delete(object.id);
    return true;
  }

  /**
   * Objects a list page of a full read begun at `startedAtVersion` should
   * have held but did not: those the last full read listed after `after`
   * (an index into its listing) and up to the last object of this page it
   * knows, not touched by the daemon since. If the service lists in a stable
   * order (by creation) they were deleted; since the spec does not promise
   * an order, the caller confirms each by GET before the cache forgets it.
   * `reached` is the index to pass as `after` with the next page.
   */
  unlistedOnPage(
    kind: KindName,
    pageIds: readonly string[],
    after: number,
    startedAtVersion: number,
  ): { readonly reached: number; readonly suspects: readonly string[] } {
    const entry = this.#kinds.get(kind);
    if (entry === undefined) return { reached: after, suspects: [] };
    let reached = after;
    for (const id of pageIds) reached = Math.max(reached, entry.position.get(id) ?? -1);
    const onPage = new Set(pageIds);
    const touched = this.#touched.get(kind);
    const suspects: string[] = [];
    for (let index = after + 1; index <= reached; index += 1) {
      const id = entry.listed[index];
      if (id === undefined || onPage.has(id) || !entry.objects.has(id)) continue;
      if ((touched?.get(id) ?? 0) > startedAtVersion) continue;
      suspects.push(id);
    }
    return { reached, suspects };
  }

  /**
   * A module-only edge the manifests name that a full read begun at
   * `startedAtVersion` found gone, taken in at once (unless the daemon
   * touched it since). True when the cache held it.
   */
  takeInMissing(kind: KindName, id: string, startedAtVersion: number): boolean {
    const entry = this.#kinds.get(kind);
    if (entry === undefined) return false;
    if ((this.#touched.get(kind)?.get(id) ?? 0) > startedAtVersion) return false;
    if (entry.missing.has(id)) return false;
    entry.objects.delete(id);
    entry.missing.add(id);
    return true;
  }

  /** An object as the service just answered it (a GET, a POST or PATCH response). */
  put(object: LiveObject): void {
    this.#touch(object.kind, object.id);
    const entry = this.#kinds.get(object.kind);
    if (entry === undefined) return;
    entry.objects.set(object.id, object);
    entry.missing.delete(object.id);
  }

  /**
   * The service said the object does not exist (a 404 on GET, or our DELETE
   * succeeded). `named`: a module-only edge the manifests name, which stays
   * known as missing, as a full read reports it.
   */
  remove(kind: KindName, id: string, named = false): void {
    this.#touch(kind, id);
    const entry = this.#kinds.get(kind);
    if (entry === undefined) return;
    entry.objects.delete(id);
    if (named) entry.missing.add(id);
  }

  /** A write changed the object, but its response does not show the whole object: read it again before planning. */
  markStale(kind: KindName, id: string): void {
    this.#touch(kind, id);
    this.#stale.set(id, kind);
  }

  staleIds(): Map<KindName, string[]> {
    const byKind = new Map<KindName, string[]>();
    for (const [id, kind] of this.#stale) byKind.set(kind, [...(byKind.get(kind) ?? []), id]);
    return byKind;
  }

  knows(kind: KindName, id: string): boolean {
    const entry = this.#kinds.get(kind);
    return entry !== undefined && (entry.objects.has(id) || entry.missing.has(id));
  }

  /**
   * The object the cache holds for `object`'s ID when it is the same (same
   * fingerprint: the same raw object), else `object`: a background full
   * read of 100,000 unchanged rules then holds no second copy of them while
   * it lists, next to the cache's.
   */
  heldIfSame(object: LiveObject): LiveObject {
    const held = this.#kinds.get(object.kind)?.objects.get(object.id);
    return held?.fingerprint === object.fingerprint ? held : object;
  }

  get(kind: KindName, id: string): LiveObject | undefined {
    return this.#kinds.get(kind)?.objects.get(id);
  }

  /** A surprise (404, unique-key conflict, changed marker) on a write: this kind is read in full again before it is planned from. */
  drop(kind: KindName): void {
    this.#kinds.delete(kind);
    for (const [id, staleKind] of this.#stale) if (staleKind === kind) this.#stale.delete(id);
  }

  snapshot(): LiveState {
    const objects = Object.fromEntries(
      this.#kindNames.map((kind) => [kind, [...(this.#kinds.get(kind)?.objects.values() ?? [])]]),
    ) as unknown as LiveObjectsByKind;
    const missingIds = this.#kindNames.flatMap((kind) => [...(this.#kinds.get(kind)?.missing ?? [])]);
    return {
      objects,
      complete: this.kindsToRead().length === 0,
      missingIds,
      stats: { requests: 0, pages: 0, durationMs: 0 },
    };
  }

  facts(): LiveStateCacheFacts {
    const kindsToRead = this.kindsToRead();
    const readAts = [...this.#kinds.values()].map((entry) => entry.fullReadAt);
    return {
      complete: kindsToRead.length === 0,
      kindsToRead,
      oldestFullReadAt: kindsToRead.length === 0 && readAts.length > 0 ? Math.min(...readAts) : null,
      objects: [...this.#kinds.values()].reduce((sum, entry) => sum + entry.objects.size, 0),
      staleObjects: this.#stale.size,
    };
  }

  #touch(kind: KindName, id: string): void {
    this.#version += 1;
    this.#stale.delete(id);
    let touched = this.#touched.get(kind);
    if (touched === undefined) {
      touched = new Map();
      this.#touched.set(kind, touched);
    }
    touched.set(id, this.#version);
  }

  #endRead(kind: KindName, startedAtVersion: number): void {
    const reads = this.#readsInProgress.get(kind) ?? [];
    const index = reads.indexOf(startedAtVersion);
    if (index >= 0) reads.splice(index, 1);
  }

  /** A touch matters only to full reads begun before it: keep the stamps no read in progress needs out of memory. */
  #forgetOldTouches(kind: KindName): void {
    const touched = this.#touched.get(kind);
    if (touched === undefined) return;
    const oldestRead = Math.min(...(this.#readsInProgress.get(kind) ?? []), this.#version);
    for (const [id, touchedAt] of touched) if (touchedAt <= oldestRead) touched.delete(id);
  }
}
