import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { ApiRequest, EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveObject, LiveStateStats } from '../kinds/live-state.js';
import { isNotFound } from '../kinds/not-found-code.js';
import { readLiveState } from '../kinds/read-live-state.js';
import { type CacheSurprise, CacheWritingApi } from './cache-writing-api.js';
import type { DaemonClock } from './daemon-clock.js';
import { type LiveCacheView, LiveStateCache } from './live-state-cache.js';

/** Objects to read by ID, by kind. */
export type ReadTargets = ReadonlyMap<KindName, readonly string[]>;

/** Module-only edge IDs the manifests name, by kind: those kinds are read by GET for exactly these. */
export type NamedModuleOnly = ReadonlyMap<KindName, readonly string[]>;

/** Reads of one target at once; the client's budget bounds the rate. */
const TARGETS_AT_ONCE = 8;

/** Module-only edges read at once by a background read, as the kind's own read does. */
const EDGES_AT_ONCE = 8;

/**
 * Objects one list page may show missing and have confirmed by GET. More
 * than this means the service does not list in the order the last read saw
 * (or a mass delete): the end of the kind's read finds them instead.
 */
const MAX_CONFIRMS_PER_PAGE = 3;

export interface LiveCacheWriterOptions {
  /** The registry of kinds: the kinds the cache holds and the writer reads. */
  readonly kinds: readonly Kind[];
  /** The client, for the reads a reconcile waits for and for writes. */
  readonly api: EdgeApi;
  readonly clock: DaemonClock;
  readonly logger: Logger;
}

/** What a background read of one kind found. */
export interface BackgroundKindRead {
  /** The finished listing held other objects than the cache did when it ended. */
  readonly differs: boolean;
  /** A page (or a confirming GET) already took a change into the cache while the read went on. */
  readonly changedOnPages: boolean;
}

export interface BackgroundKindReadOptions {
  /** The API behind the read share: every request waits its turn, and its list pages come to `takeInPage`. */
  readonly api: EdgeApi;
  readonly named: NamedModuleOnly;
  readonly signal: AbortSignal;
  /** A change was taken into the cache (drift): reconcile against it now, not when the read ends. */
  readonly onDrift: () => void;
}

/** A background read of one kind in progress. */
interface BackgroundRead {
  readonly kind: Kind;
  /** The cache's version when the read began. */
  readonly version: number;
  readonly options: BackgroundKindReadOptions;
  /** How far into the last full read's listing this read's pages have come. */
  reached: number;
  changedOnPages: boolean;
  /** GETs confirming objects a page did not show: awaited before the read ends. */
  readonly confirming: Set<Promise<void>>;
}

/**
 * The one writer of the daemon's live-state cache, as an informer's
 * reflector is of its store: every full read, every read by ID and every
 * write's answer reaches the cache through here, and every other part of the
 * daemon holds only `view`. Which requests count as foreground work, and for
 * which purpose, is the callers' to say.
 */
export class LiveCacheWriter {
  readonly view: LiveCacheView;
  readonly #cache: LiveStateCache;
  readonly #kinds: ReadonlyMap<KindName, Kind>;
  readonly #options: LiveCacheWriterOptions;
  readonly #log: Logger;
  readonly #background = new Map<KindName, BackgroundRead>();

  constructor(options: LiveCacheWriterOptions) {
    this.#options = options;
    this.#kinds = new Map(options.kinds.map((kind) => [kind.name, kind]));
    this.#cache = new LiveStateCache(options.kinds.map((kind) => kind.name));
    this.view = this.#cache;
    this.#log = options.logger.child({ component: 'live-cache' });
  }

  /**
   * Reads `kinds` in full with the client (a reconcile is waiting for it)
   * and hands each to the cache once its listing is whole. A failure leaves
   * those kinds to read again, and rejects. `api`: the client as the caller
   * counts it (a forced re-read shows its pages as it goes).
   */
  async readInFull(
    kinds: readonly KindName[],
    named: NamedModuleOnly,
    signal: AbortSignal,
    api: EdgeApi = this.#options.api,
  ): Promise<LiveStateStats> {
    const cache = this.#cache;
    const versions = kinds.map((kind) => cache.beginFullRead(kind));
    let live: Awaited<ReturnType<typeof readLiveState>>;
    try {
      live = await readLiveState(api, {
        kinds: kinds.map((kind) => this.#kind(kind)),
        idsByKind: Object.fromEntries(named),
        signal,
      });
    } catch (error) {
      kinds.forEach((kind, index) => {
        cache.abandonFullRead(kind, versions[index] ?? 0);
      });
      throw error;
    }
    const finishedAt = this.#options.clock.now();
    kinds.forEach((kind, index) => {
      const ids = new Set(named.get(kind) ?? []);
      cache.acceptFullRead({
        kind,
        objects: live.objects[kind] ?? [],
        missingIds: live.missingIds.filter((id) => ids.has(id)),
        startedAtVersion: versions[index] ?? 0,
        finishedAt,
      });
    });
    return live.stats;
  }

  /**
   * Reads each target by ID and puts the answer in the cache: the object as
   * it is now, or its removal on a 404. A metadata kind's object is read by
   * one GET of its own URI (the one its DELETE uses); a module-only edge by one
   * GET per module, as a full read does. Returns how many objects were read.
   */
  async readTargets(
    targets: ReadTargets,
    named: NamedModuleOnly,
    signal: AbortSignal,
    api: EdgeApi = this.#options.api,
  ): Promise<number> {
    const queue = new PQueue({ concurrency: TARGETS_AT_ONCE });
    const reads: Promise<void>[] = [];
    let count = 0;
    for (const [kindName, ids] of targets) {
      const kind = this.#kind(kindName);
      count += ids.length;
      if (kind.ownership === 'modules-only') {
        const namedIds = new Set(named.get(kindName) ?? []);
        reads.push(queue.add(() => this.#readModuleEdges(api, kind, ids, namedIds, signal)));
        continue;
      }
      for (const id of ids) reads.push(queue.add(() => this.#readObject(api, kind, id, signal)));
    }
    try {
      await Promise.all(reads);
    } finally {
      queue.clear();
    }
    return count;
  }

  /**
   * The client as the executor uses it in the daemon: a POST or PATCH
   * answers with the whole object, which the cache takes; a DELETE removes
   * it; a module write marks its edge to be read again; a write that meets a
   * surprise drops the cache of its kind, so the next plan of that kind
   * starts from a full read.
   */
  writesApi(onSurprise: (surprise: CacheSurprise) => void): EdgeApi {
    return new CacheWritingApi(this.#options.api, (name) => this.#kinds.get(name), {
      written: (kind, request, body) => this.#takeInWrite(kind, request, body),
      surprised: (surprise) => {
        this.#cache.drop(surprise.kind);
        onSurprise(surprise);
      },
    });
  }

  /**
   * The background resync's read of one kind: objects that changed are
   * taken into the cache page by page (`takeInPage`), a module-only kind
   * edge by edge, and the kind is handed over whole when its listing ends.
   * Rejects, leaving the cache's last full read of the kind, when the read
   * fails.
   */
  async readInBackground(
    kindName: KindName,
    options: BackgroundKindReadOptions,
  ): Promise<BackgroundKindRead> {
    const cache = this.#cache;
    const kind = this.#kind(kindName);
    const version = cache.beginFullRead(kind.name);
    const read: BackgroundRead = {
      kind,
      version,
      options,
      reached: -1,
      changedOnPages: false,
      confirming: new Set(),
    };
    this.#background.set(kind.name, read);
    let objects: readonly LiveObject[];
    let missingIds: readonly string[];
    try {
      const live = await readLiveState(options.api, {
        kinds: [kind.ownership === 'modules-only' ? this.#edgeByEdge(read) : kind],
        idsByKind: { [kind.name]: options.named.get(kind.name) ?? [] },
        signal: options.signal,
        keep: (object) => cache.heldIfSame(object),
      });
      objects = live.objects[kind.name] ?? [];
      missingIds = live.missingIds;
    } catch (error) {
      this.#background.delete(kind.name);
      cache.abandonFullRead(kind.name, version);
      await Promise.all(read.confirming);
      throw error;
    }
    this.#background.delete(kind.name);
    const differs = cache.differs(kind.name, objects, missingIds);
    cache.acceptFullRead({
      kind: kind.name,
      objects,
      missingIds,
      startedAtVersion: version,
      finishedAt: this.#options.clock.now(),
    });
    await Promise.all(read.confirming);
    return { differs, changedOnPages: read.changedOnPages };
  }

  /**
   * A list page of a background read (BackgroundReadApi's page observer):
   * objects that changed are taken into the cache at once, and drift is
   * reported without waiting for the listing to end.
   */
  readonly takeInPage = (label: string | undefined, items: readonly unknown[]): void => {
    const read = label === undefined ? undefined : this.#background.get(label);
    if (read === undefined) return;
    const cache = this.#cache;
    let changed = false;
    const ids: string[] = [];
    for (const item of items) {
      try {
        const object = read.kind.fromApi(item);
        ids.push(object.id);
        if (cache.takeInListed(object, read.version)) changed = true;
      } catch {
        // The kind's read rejects the same item in a moment, with the error that says why.
      }
    }
    // A deleted object shows as a gap: without this it is seen only when a whole listing ends, up to two cycles later.
    const { reached, suspects } = cache.unlistedOnPage(read.kind.name, ids, read.reached, read.version);
    read.reached = reached;
    if (suspects.length > 0 && suspects.length <= MAX_CONFIRMS_PER_PAGE) this.#confirmGone(read, suspects);
    if (changed) this.#drifted(read);
  };

  #drifted(read: BackgroundRead): void {
    read.changedOnPages = true;
    read.options.onDrift();
  }

  /** GETs each object a page did not show; a 404 takes it out of the cache at once, as drift. */
  #confirmGone(read: BackgroundRead, ids: readonly string[]): void {
    const kind = read.kind.name;
    const confirming = this.readTargets(
      new Map([[kind, ids]]),
      new Map(),
      read.options.signal,
      read.options.api,
    ).then(
      () => {
        if (ids.some((id) => this.#cache.get(kind, id) === undefined)) this.#drifted(read);
      },
      (err: unknown) => {
        // The end of the kind's read still finds it.
        if (!read.options.signal.aborted)
          this.#log.debug({ err, kind }, 'confirming a missing object failed');
      },
    );
    read.confirming.add(confirming);
    void confirming.finally(() => read.confirming.delete(confirming));
  }

  /**
   * A module-only kind read edge by edge, each taken into the cache as soon
   * as its modules are read (a changed module, or an edge now gone): the
   * listed kinds' pages do the same, so drift waits at most one cycle.
   */
  #edgeByEdge(read: BackgroundRead): Kind {
    const { kind, version } = read;
    const cache = this.#cache;
    return {
      ...kind,
      readLive: async (ctx) => {
        const queue = new PQueue({ concurrency: EDGES_AT_ONCE });
        const found = await Promise.all(
          [...new Set(ctx.ids)].map((id) =>
            queue.add(async () => {
              const [edge] = await kind.readLive({ ...ctx, ids: [id] });
              const changed =
                edge === undefined
                  ? cache.takeInMissing(kind.name, id, version)
                  : cache.takeInListed(edge, version);
              if (changed) this.#drifted(read);
              return edge;
            }),
          ),
        ).finally(() => queue.clear());
        return found.filter((edge): edge is LiveObject => edge !== undefined);
      },
    };
  }

  async #readObject(api: EdgeApi, kind: Kind, id: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    try {
      const response = await api.request(
        { method: 'GET', path: kind.deleteRequest(id).path },
        { signal, kind: kind.name },
      );
      this.#cache.put(kind.fromApi(response.body));
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.#cache.remove(kind.name, id);
    }
  }

  async #readModuleEdges(
    api: EdgeApi,
    kind: Kind,
    ids: readonly string[],
    named: ReadonlySet<string>,
    signal: AbortSignal,
  ): Promise<void> {
    signal.throwIfAborted();
    const found = await kind.readLive({ api, ids, signal });
    for (const object of found) this.#cache.put(object);
    const foundIds = new Set(found.map((object) => object.id));
    for (const id of ids) if (!foundIds.has(id)) this.#cache.remove(kind.name, id, named.has(id));
  }

  /** What a write's answer tells the cache about its object. */
  #takeInWrite(kind: Kind, request: ApiRequest, body: unknown): void {
    const id = idIn(kind, request.path) ?? idOf(body);
    if (id === undefined) return;
    const ownPath = kind.ownership === 'metadata' ? kind.deleteRequest(id).path : undefined;
    if (request.method === 'DELETE' && request.path === ownPath) {
      this.#cache.remove(kind.name, id);
      return;
    }
    const wholeObject =
      (request.method === 'POST' && idIn(kind, request.path) === undefined) ||
      (request.method === 'PATCH' && request.path === ownPath);
    if (wholeObject && idOf(body) === id) {
      try {
        this.#cache.put(kind.fromApi(body));
        return;
      } catch {
        // Not the shape a list returns: read it back instead of guessing.
      }
    }
    this.#cache.markStale(kind.name, id);
  }

  #kind(name: KindName): Kind {
    const kind = this.#kinds.get(name);
    // The cache holds the registry's kinds only: any other name is the daemon's own bug.
    if (kind === undefined) throw new Error(`no kind named ${JSON.stringify(name)} in the daemon's registry`);
    return kind;
  }
}

/** The ID of `kind` a request path names (`/edges/tcp/edgtcp_…/ip_restriction` → `edgtcp_…`). */
function idIn(kind: Kind, path: string): string | undefined {
  return path.split('/').find((segment) => segment.startsWith(kind.idPrefix));
}

function idOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const id = (body as { readonly id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}
