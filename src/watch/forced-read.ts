import type { Logger } from 'pino';
import type {
  ApiRequest,
  ApiResponse,
  EdgeApi,
  ListPage,
  PaginateOptions,
  RequestOptions,
  RequestStats,
} from '../api/edge-api.js';
import type { KindName } from '../kinds/kind-name.js';
import type { DaemonClock } from './daemon-clock.js';
import type { LiveCacheWriter, NamedModuleOnly } from './live-cache-writer.js';
import {
  type ForcedRequestState,
  type ForcedTrigger,
  isForcedTrigger,
  type ReconcileTrigger,
} from './reconcile-loop.js';
import { withPurpose } from './request-purpose.js';

/** One forced reconcile's full re-read, as `/status` shows it. */
export interface ForcedReadRecord {
  readonly trigger: ForcedTrigger;
  /** RFC 3339. */
  readonly startedAt: string;
  /** RFC 3339; null while it runs. */
  readonly finishedAt: string | null;
  /** List pages read so far (about 1,000 for 100,000 rules). */
  readonly pagesRead: number;
  /** Requests sent so far: list pages and module GETs. */
  readonly requests: number;
  /** The reconcile's result once it finished (`in-sync`, `applied`, `failed`, …); null while it runs. */
  readonly result: string | null;
}

/** Forced reconciles (SIGHUP, POST /reconcile) as `/status` shows them. */
export interface ForcedReconcileStatus {
  /** Requests for one so far; POST /reconcile answers with this number as the request's ticket. */
  readonly requested: number;
  /** The highest ticket a finished reconcile has served: a ticket at most this is done. */
  readonly completed: number;
  /** The forced reconcile running now; null when none is. */
  readonly inProgress: ForcedReadRecord | null;
  readonly last: ForcedReadRecord | null;
}

export interface ForcedReadsOptions {
  readonly kinds: readonly KindName[];
  /** The cache's one writer: the forced read replaces each kind's cache through it. */
  readonly writer: LiveCacheWriter;
  /** The client itself, not the read share: a forced read may use all the budget that writes leave free. */
  readonly api: EdgeApi;
  readonly clock: DaemonClock;
  readonly logger: Logger;
}

/**
 * The full re-read on demand. A request takes a ticket; the forced reconcile
 * that starts next serves every ticket taken before it, reads the whole
 * account (every kind, whatever the cache holds) through the cache's writer
 * at the pace of the client's budget, and counts its pages as it goes so that
 * `/status` shows how far it is.
 */
export class ForcedReads {
  readonly #options: ForcedReadsOptions;
  readonly #log: Logger;
  #requested = 0;
  #completed = 0;
  #serving = 0;
  #current: { trigger: ForcedTrigger; startedAt: number; api: CountingApi } | null = null;
  #last: ForcedReadRecord | null = null;

  constructor(options: ForcedReadsOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'forced-read' });
  }

  /** A request arrived (`state`: what the loop did with it): its ticket. */
  requested(trigger: ForcedTrigger, state: ForcedRequestState): number {
    this.#requested += 1;
    this.#log.info({ trigger, state, ticket: this.#requested }, 'full re-read requested');
    return this.#requested;
  }

  /**
   * A reconcile starts: a forced one serves every ticket taken so far. So
   * does the startup reconcile, which reads everything in full anyway.
   */
  begin(trigger: ReconcileTrigger): void {
    if (!isForcedTrigger(trigger) && trigger !== 'startup') return;
    this.#serving = this.#requested;
    if (isForcedTrigger(trigger)) {
      this.#current = {
        trigger,
        startedAt: this.#options.clock.now(),
        api: new CountingApi(this.#options.api),
      };
    }
  }

  /** The reconcile that `begin` saw has finished with `result`. */
  end(trigger: ReconcileTrigger, result: string | null): void {
    if (!isForcedTrigger(trigger) && trigger !== 'startup') return;
    this.#completed = Math.max(this.#completed, this.#serving);
    const current = this.#current;
    if (current === null) return;
    this.#current = null;
    this.#last = this.#record(current, this.#options.clock.now(), result);
  }

  /**
   * Reads every kind in full into the cache (the reconciler calls it after
   * loading the manifests, before planning). Rejects when a read fails; the
   * cache keeps what it held for the kinds not read.
   */
  async read(named: NamedModuleOnly, signal: AbortSignal): Promise<void> {
    const current = this.#current;
    if (current === null) return;
    const startedAt = this.#options.clock.now();
    await withPurpose('full-read', () =>
      this.#options.writer.readInFull(this.#options.kinds, named, signal, current.api),
    );
    this.#log.info(
      {
        trigger: current.trigger,
        pagesRead: current.api.pages,
        requests: current.api.requests,
        durationMs: this.#options.clock.now() - startedAt,
      },
      'full re-read finished',
    );
  }

  status(): ForcedReconcileStatus {
    const current = this.#current;
    return {
      requested: this.#requested,
      completed: this.#completed,
      inProgress: current === null ? null : this.#record(current, null, null),
      last: this.#last,
    };
  }

  #record(
    current: { trigger: ForcedTrigger; startedAt: number; api: CountingApi },
    finishedAt: number | null,
    result: string | null,
  ): ForcedReadRecord {
    return {
      trigger: current.trigger,
      startedAt: new Date(current.startedAt).toISOString(),
      finishedAt: finishedAt === null ? null : new Date(finishedAt).toISOString(),
      pagesRead: current.api.pages,
      requests: current.api.requests,
      result,
    };
  }
}

/** The client, counting what a forced read sends as it goes (the client's own stats count every run). */
class CountingApi implements EdgeApi {
  readonly #api: EdgeApi;
  pages = 0;
  requests = 0;

  constructor(api: EdgeApi) {
    this.#api = api;
  }

  request<T = unknown>(request: ApiRequest, options?: RequestOptions): Promise<ApiResponse<T>> {
    this.requests += 1;
    return this.#api.request<T>(request, options);
  }

  async *paginate<T = unknown>(
    path: string,
    listKey: string,
    options?: PaginateOptions,
  ): AsyncIterable<ListPage<T>> {
    for await (const page of this.#api.paginate<T>(path, listKey, options)) {
      this.pages += 1;
      this.requests += 1;
      yield page;
    }
  }

  stats(): RequestStats {
    return this.#api.stats();
  }
}
