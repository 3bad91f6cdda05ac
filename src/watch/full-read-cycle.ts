import type { Logger } from 'pino';
import type { EdgeApi } from '../api/edge-api.js';
import type { KindName } from '../kinds/kind-name.js';
import type { DaemonClock } from './daemon-clock.js';
import type { LiveCacheWriter, NamedModuleOnly } from './live-cache-writer.js';
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
  /** The kinds to read, in the registry's order. */
  readonly kinds: readonly KindName[];
  /** Takes each kind's read into the cache, page by page. */
  readonly writer: LiveCacheWriter;
  readonly clock: DaemonClock;
  readonly logger: Logger;
  /** Time between the starts of two cycles, milliseconds; a cycle longer than this is followed at once. */
  readonly intervalMs: number;
  /** Module-only edge IDs the manifests name, by kind; null until the manifests were loaded. */
  readonly namedModuleOnly: () => NamedModuleOnly | null;
  /** A kind's read found what the cache did not hold (drift): reconcile against the cache now. */
  readonly onDrift: () => void;
  readonly onCycle: (record: FullCycleRecord) => void;
}

/**
 * The background resync: reads every kind in full, at the pace of the read
 * share, through the cache's writer, which takes each page in as it arrives
 * and hands each kind to the cache when its read is finished (the cache
 * never shows part of a listing). All kinds are read at once, so their
 * requests take turns in the read share's queue.
 */
export class FullReadCycle {
  readonly #options: FullReadCycleOptions;
  readonly #log: Logger;
  readonly #controller = new AbortController();
  #cancelTimer: (() => void) | null = null;
  #running: Promise<void> | null = null;
  #startedAt: number | null = null;
  #last: FullCycleRecord | null = null;
  #stopped = false;

  constructor(options: FullReadCycleOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'full-read' });
  }

  /** Clock milliseconds when the cycle in progress began; null when none is. */
  get inProgressSince(): number | null {
    return this.#running === null ? null : this.#startedAt;
  }

  /** The last cycle that finished: its time is the longest any drift waits to be seen; null before one. */
  get lastCycle(): FullCycleRecord | null {
    return this.#last;
  }

  /** Schedules the first cycle one interval from now (the startup reconcile has just read everything). */
  start(): void {
    this.#schedule(this.#options.intervalMs);
  }

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
    const kindsChanged: KindName[] = [];
    let failed = false;
    await Promise.all(
      this.#options.kinds.map(async (kind) => {
        try {
          const read = await withPurpose('full-read', () =>
            this.#options.writer.readInBackground(kind, {
              api: this.#options.api,
              named,
              signal: this.#controller.signal,
              onDrift: this.#options.onDrift,
            }),
          );
          if (read.differs || read.changedOnPages) kindsChanged.push(kind);
          if (read.differs) this.#options.onDrift();
        } catch (err) {
          if (!this.#stopped) {
            failed = true;
            this.#log.warn({ err, kind }, 'background full read failed; the cache keeps the last one');
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
      this.#last = record;
      this.#options.onCycle(record);
    }
    this.#schedule(Math.max(0, startedAt + this.#options.intervalMs - finishedAt));
  }
}
