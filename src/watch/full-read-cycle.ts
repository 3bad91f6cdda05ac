import type { Logger } from 'pino';
import type { EdgeApi } from '../api/edge-api.js';
import { isKindName, type KindName } from '../kinds/kind-name.js';
import { readLiveState } from '../kinds/read-live-state.js';
import { KINDS, kindByName } from '../kinds/registry.js';
import type { DaemonClock } from './daemon-clock.js';
import type { LiveStateCache } from './live-state-cache.js';
import { withPurpose } from './request-purpose.js';

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
    for (const item of items) {
      try {
        if (this.#options.cache.takeInListed(kind.fromApi(item), version)) changed = true;
      } catch {
        // The kind's read rejects the same item in a moment, with the error that says why.
      }
    }
    if (!changed) return;
    this.#changedInPages.add(label);
    this.#options.onDrift();
  };

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelTimer?.();
    this.#controller.abort(new Error('daemon stopping'));
    await this.#running;
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
    const kindsChanged: KindName[] = [];
    let failed = false;
    await Promise.all(
      KINDS.map(async (kind) => {
        const version = this.#options.cache.beginFullRead(kind.name);
        this.#readVersions.set(kind.name, version);
        try {
          const live = await withPurpose('full-read', () =>
            readLiveState(this.#options.api, {
              kinds: [kind],
              idsByKind: { [kind.name]: named.get(kind.name) ?? [] },
              signal: this.#controller.signal,
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
