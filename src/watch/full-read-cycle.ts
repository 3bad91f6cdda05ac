import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import { isKindName, type KindName } from '../kinds/kind-name.js';
import type { LiveObject } from '../kinds/live-state.js';
import { readLiveState } from '../kinds/read-live-state.js';
import { KINDS, kindByName } from '../kinds/registry.js';
import type { DaemonClock } from './daemon-clock.js';
import type { LiveStateCache } from './live-state-cache.js';
import { withPurpose } from './request-purpose.js';
import { readTargetsInto } from './targeted-read.js';

/**
 * Objects one list page may show missing and have confirmed by GET. More
 * than this means the service does not list in the order the last read saw
 * (or a mass delete): the end of the kind's read finds them instead.
 */
const MAX_CONFIRMS_PER_PAGE = 3;

/** Module-only edges read at once by a background cycle, as the kind's own read does. */
const EDGES_AT_ONCE = 8;

/** What one background full read took, for `/status` and the metrics. */
export interface FullCycleRecord {
  /** RFC 3339. */
  readonly finishedAt: string;
  readonly durationMs: number;
  /** Requests the cycle sent: list pages and module GETs. */
  readonly requests: number;
  /** Kinds whose objects differed from the cache when their read finished. */
  readonly kindsChanged: readonly KindName[];
}

export interface FullReadCycleOptions {
  /** The API behind the read share (BackgroundReadApi): every request waits its turn. */
  readonly api: EdgeApi & { readonly sent: number };
  readonly cache: LiveStateCache;
  readonly clock: DaemonClock;
  readonly logger: Logger;
  /** Time between the starts of two cycles, milliseconds; a cycle longer than this is followed at once. */
  readonly intervalMs: number;
  /** Module-only edge IDs the manifests name, by kind; null until the manifests were loaded. */
  readonly namedModuleOnly: () => ReadonlyMap<KindName, readonly string[]> | null;
  /** A kind's read found what the cache did not hold (drift): reconcile against the cache now. */
  readonly onDrift: () => void;
  readonly onCycle: (record: FullCycleRecord) => void;
}

/**
 * The background resync: reads every kind in full, at the pace of the read
 * share, and hands each kind to the cache as soon as its read is finished
 * (the cache never shows part of a listing). All kinds are read at once, so
 * their requests take turns in the read share's queue.
 */
export class FullReadCycle {
  readonly #options: FullReadCycleOptions;
  readonly #log: Logger;
  readonly #controller = new AbortController();
  #cancelTimer: (() => void) | null = null;
  #running: Promise<void> | null = null;
  #startedAt: number | null = null;
  #stopped = false;
  /** Cache versions at which this cycle's read of each kind began. */
  readonly #readVersions = new Map<KindName, number>();
  /** Kinds of this cycle whose pages held changed objects. */
  readonly #changedInPages = new Set<KindName>();
  /** How far into the last full read's listing this cycle's pages of each kind have come. */
  readonly #reached = new Map<KindName, number>();
  /** GETs confirming objects a page did not show: awaited before the cycle ends. */
  readonly #confirming = new Set<Promise<void>>();

  constructor(options: FullReadCycleOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'full-read' });
  }

  /** Clock milliseconds when the cycle in progress began; null when none is. */
  get inProgressSince(): number | null {
    return this.#running === null ? null : this.#startedAt;
  }

  /** Schedules the first cycle one interval from now (the startup reconcile has just read everything). */
  start(): void {
    this.#schedule(this.#options.intervalMs);
  }

  /**
   * A list page of this cycle's read (BackgroundReadApi's page observer):
   * objects that changed are taken into the cache at once, and drift is
   * reported without waiting for the listing to end.
   */
  readonly takeInPage = (label: string | undefined, items: readonly unknown[]): void => {
    if (label === undefined || !isKindName(label)) return;
    const version = this.#readVersions.get(label);
    if (version === undefined) return;
    const kind = kindByName(label);
    let changed = false;
    const ids: string[] = [];
    for (const item of items) {
      try {
        const object = kind.fromApi(item);
        ids.push(object.id);
        if (this.#options.cache.takeInListed(object, version)) changed = true;
      } catch {
        // The kind's read rejects the same item in a moment, with the error that says why.
      }
    }
    // A deleted object shows as a gap: without this it is seen only when a whole listing ends, up to two cycles later.
    const { reached, suspects } = this.#options.cache.unlistedOnPage(
      label,
      ids,
      this.#reached.get(label) ?? -1,
      version,
    );
    this.#reached.set(label, reached);
    if (suspects.length > 0 && suspects.length <= MAX_CONFIRMS_PER_PAGE) this.#confirmGone(label, suspects);
    if (!changed) return;
    this.#changedInPages.add(label);
    this.#options.onDrift();
  };

  /**
   * A module-only kind read edge by edge, each taken into the cache as soon
   * as its modules are read (a changed module, or an edge now gone): the
   * listed kinds' pages do the same, so drift waits at most one cycle.
   */
  #edgeByEdge(kind: Kind, version: number): Kind {
    const { cache } = this.#options;
    const found = (changed: boolean): void => {
      if (!changed) return;
      this.#changedInPages.add(kind.name);
      this.#options.onDrift();
    };
    return {
      ...kind,
      readLive: async (ctx) => {
        const queue = new PQueue({ concurrency: EDGES_AT_ONCE });
        const read = await Promise.all(
          [...new Set(ctx.ids)].map((id) =>
            queue.add(async () => {
              const [edge] = await kind.readLive({ ...ctx, ids: [id] });
              found(
                edge === undefined
                  ? cache.takeInMissing(kind.name, id, version)
                  : cache.takeInListed(edge, version),
              );
              return edge;
            }),
          ),
        ).finally(() => queue.clear());
        return read.filter((edge): edge is LiveObject => edge !== undefined);
      },
    };
  }

  /** GETs each object a page did not show; a 404 takes it out of the cache at once, as drift. */
  #confirmGone(kind: KindName, ids: readonly string[]): void {
    const { cache } = this.#options;
    const confirming = readTargetsInto(
      this.#options.api,
      cache,
      new Map([[kind, ids]]),
      new Map(),
      this.#controller.signal,
    ).then(
      () => {
        if (ids.some((id) => cache.get(kind, id) === undefined)) {
          this.#changedInPages.add(kind);
          this.#options.onDrift();
        }
      },
      (err: unknown) => {
        // The end of the kind's read still finds it.
        if (!this.#stopped) this.#log.debug({ err, kind }, 'confirming a missing object failed');
      },
    );
    this.#confirming.add(confirming);
    void confirming.finally(() => this.#confirming.delete(confirming));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelTimer?.();
    this.#controller.abort(new Error('daemon stopping'));
    await this.#running;
    await Promise.all(this.#confirming);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#cancelTimer?.();
    this.#cancelTimer = this.#options.clock.setTimeout(() => {
      this.#cancelTimer = null;
      this.#running = this.#cycle().finally(() => {
        this.#running = null;
      });
    }, delayMs);
  }

  async #cycle(): Promise<void> {
    const startedAt = this.#options.clock.now();
    this.#startedAt = startedAt;
    const named = this.#options.namedModuleOnly();
    if (named === null) {
      this.#schedule(this.#options.intervalMs);
      return;
    }
    const sentBefore = this.#options.api.sent;
    this.#changedInPages.clear();
    this.#reached.clear();
    const kindsChanged: KindName[] = [];
    let failed = false;
    await Promise.all(
      KINDS.map(async (kind) => {
        const version = this.#options.cache.beginFullRead(kind.name);
        this.#readVersions.set(kind.name, version);
        try {
          const live = await withPurpose('full-read', () =>
            readLiveState(this.#options.api, {
              kinds: [kind.ownership === 'modules-only' ? this.#edgeByEdge(kind, version) : kind],
              idsByKind: { [kind.name]: named.get(kind.name) ?? [] },
              signal: this.#controller.signal,
              keep: (object) => this.#options.cache.heldIfSame(object),
            }),
          );
          const objects = live.objects[kind.name] ?? [];
          this.#readVersions.delete(kind.name);
          const differs = this.#options.cache.differs(kind.name, objects, live.missingIds);
          this.#options.cache.acceptFullRead({
            kind: kind.name,
            objects,
            missingIds: live.missingIds,
            startedAtVersion: version,
            finishedAt: this.#options.clock.now(),
          });
          if (differs || this.#changedInPages.has(kind.name)) kindsChanged.push(kind.name);
          if (differs) this.#options.onDrift();
        } catch (err) {
          this.#readVersions.delete(kind.name);
          this.#options.cache.abandonFullRead(kind.name, version);
          if (!this.#stopped) {
            failed = true;
            this.#log.warn(
              { err, kind: kind.name },
              'background full read failed; the cache keeps the last one',
            );
          }
        }
      }),
    );
    await Promise.all(this.#confirming);
    if (this.#stopped) return;
    const finishedAt = this.#options.clock.now();
    if (!failed) {
      const record: FullCycleRecord = {
        finishedAt: new Date(finishedAt).toISOString(),
        durationMs: finishedAt - startedAt,
        requests: this.#options.api.sent - sentBefore,
        kindsChanged,
      };
      this.#log.info(record, 'full read cycle finished');
      this.#options.onCycle(record);
    }
    this.#schedule(Math.max(0, startedAt + this.#options.intervalMs - finishedAt));
  }
}
