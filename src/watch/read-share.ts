import type {
  ApiRequest,
  ApiResponse,
  EdgeApi,
  ListPage,
  PaginateOptions,
  RequestOptions,
  RequestStats,
} from '../api/edge-api.js';
import { RequestBudget } from '../api/request-budget.js';
import type { Clock, Sleep } from '../api/time-source.js';

/** Requests per rolling window, as the client's budget holds them. */
export interface BudgetRate {
  readonly requests: number;
  /** Milliseconds. */
  readonly windowMs: number;
}

export interface ReadShareOptions {
  /** The client's whole budget. */
  readonly budget: BudgetRate;
  /** Fraction (0, 1] of the budget that background full reads may use. */
  readonly share: number;
  /** @default Date.now */
  readonly clock?: Clock;
  /** @default a timer that honours the signal */
  readonly sleep?: Sleep;
}

/**
 * The part of the request budget that background full reads may spend, and
 * the rule that they go last. A background request waits until no
 * foreground work (a change-triggered reconcile: its targeted reads and its
 * writes) is running, then for a slot of its own budget: `share` of the
 * client's, cut into six slices of the window so that a long read is spread
 * over the window rather than sent in one burst. The client's budget still
 * counts every request; this only keeps background reads to their share and
 * out of the way.
 */
export class ReadShare {
  readonly share: number;
  readonly budget: BudgetRate;
  readonly #slots: RequestBudget;
  #foreground = 0;
  #idle: Promise<void> = Promise.resolve();
  #resolveIdle: () => void = () => {};

  constructor(options: ReadShareOptions) {
    this.share = options.share;
    this.budget = options.budget;
    const perWindow = options.share * options.budget.requests;
    // Six slices when the share allows at least one request per slice; else the whole window.
    const slices = perWindow >= 6 ? 6 : 1;
    this.#slots = new RequestBudget({
      requests: Math.max(1, Math.floor(perWindow / slices)),
      windowMs: options.budget.windowMs / slices,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    });
  }

  /** Background requests per minute at most: the pace of a full read. */
  get requestsPerMinute(): number {
    return (this.#slots.requests * 60_000) / this.#slots.windowMs;
  }

  /** Milliseconds a full read of `requests` requests takes at this share: requests ÷ (share × budget). */
  cycleMs(requests: number): number {
    return (requests / this.#slots.requests) * this.#slots.windowMs;
  }

  /**
   * Runs `work` as foreground work: background requests wait while it runs.
   * A reconcile's requests are foreground; its loading and planning, which
   * send nothing, are not, and do not hold the background back.
   */
  async inForeground<T>(work: () => Promise<T>): Promise<T> {
    const release = this.holdBackground();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Foreground work begins; background requests wait until the returned function is called. */
  holdBackground(): () => void {
    if (this.#foreground === 0) {
      this.#idle = new Promise((resolve) => {
        this.#resolveIdle = resolve;
      });
    }
    this.#foreground += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#foreground -= 1;
      if (this.#foreground === 0) this.#resolveIdle();
    };
  }

  /** Waits for the foreground to be idle and for a background slot, then takes it. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.#foreground > 0) await abortable(this.#idle, signal);
      await this.#slots.acquire(signal);
      // Foreground work that began while this waited for its slot still goes first.
      if (this.#foreground === 0) return;
    }
  }
}

/** Sees each list page as it arrives: `label` is the request's `kind` option (the kind's name for lists). */
export type PageObserver = (label: string | undefined, items: readonly unknown[]) => void;

/**
 * The API as background full reads use it: every request and every list
 * page waits for the read share first, and each page is shown to `onPage`
 * before it is handed on.
 */
export class BackgroundReadApi implements EdgeApi {
  readonly #api: EdgeApi;
  readonly #share: ReadShare;
  readonly #onPage: PageObserver;
  #sent = 0;

  constructor(api: EdgeApi, share: ReadShare, onPage: PageObserver = () => {}) {
    this.#api = api;
    this.#share = share;
    this.#onPage = onPage;
  }

  async request<T = unknown>(request: ApiRequest, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    await this.#share.acquire(options.signal);
    this.#sent += 1;
    return this.#api.request<T>(request, options);
  }

  async *paginate<T = unknown>(
    path: string,
    listKey: string,
    options: PaginateOptions = {},
  ): AsyncIterable<ListPage<T>> {
    // Not ahead: each page's request waits for its share, which a page asked for ahead would skip.
    const pages = this.#api
      .paginate<T>(path, listKey, { ...options, readAhead: false })
      [Symbol.asyncIterator]();
    try {
      for (;;) {
        // The next page is requested by `next()`: wait for the share before asking.
        await this.#share.acquire(options.signal);
        const page = await pages.next();
        if (page.done === true) return;
        this.#sent += 1;
        this.#onPage(options.kind, page.value.items);
        yield page.value;
      }
    } finally {
      await pages.return?.();
    }
  }

  /** Requests this API sent (list pages and GETs; the client's retries not counted). */
  get sent(): number {
    return this.#sent;
  }

  stats(): RequestStats {
    return this.#api.stats();
  }
}

/** Resolves with `promise`, or rejects as soon as `signal` aborts; leaves no listener behind on the daemon's long-lived signal. */
function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
