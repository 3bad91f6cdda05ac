import { EdgesyncError } from '../errors.js';
import { RequestAbortedError, throwIfAborted } from './request-aborted-error.js';
import { type Clock, type Sleep, systemClock, systemSleep } from './time-source.js';

export interface RequestBudgetOptions {
  /** Requests allowed per rolling window. @default 120 */
  readonly requests?: number;
  /** Rolling window, in milliseconds. @default 60000 */
  readonly windowMs?: number;
  /** @default Date.now */
  readonly clock?: Clock;
  /** @default a timer that honours the signal */
  readonly sleep?: Sleep;
}

/**
 * The one request budget of a client: at most `requests` HTTP attempts
 * (retries included) in any rolling window of `windowMs`, shared by reads and
 * writes and by every caller holding this instance. `pauseFor` stops every
 * acquirer, which is how one 429 pauses the whole client. Acquirers are served
 * in arrival order.
 */
export class RequestBudget {
  readonly requests: number;
  readonly windowMs: number;
  readonly #clock: Clock;
  readonly #sleep: Sleep;
  /** Start times of the attempts in the current window, oldest first. */
  readonly #granted: number[] = [];
  #pausedUntil = 0;
  /** When the service began answering 429 to every attempt; undefined once it answers one otherwise. */
  #refusingSince: number | undefined;
  #waitedMs = 0;
  /** Acquirers waiting for their turn or a slot. */
  #waiting = 0;
  #tail: Promise<void> = Promise.resolve();

  constructor(options: RequestBudgetOptions = {}) {
    this.requests = options.requests ?? 120;
    this.windowMs = options.windowMs ?? 60_000;
    if (!Number.isSafeInteger(this.requests) || this.requests < 1) {
      throw new EdgesyncError(
        'invalid_option',
        `request budget: requests must be an integer >= 1 (found ${this.requests})`,
      );
    }
    if (!Number.isFinite(this.windowMs) || this.windowMs <= 0) {
      throw new EdgesyncError(
        'invalid_option',
        `request budget: windowMs must be > 0 (found ${this.windowMs})`,
      );
    }
    this.#clock = options.clock ?? systemClock;
    this.#sleep = options.sleep ?? systemSleep;
  }

  /** Total milliseconds acquirers were held back (window full or paused), counted once however many waited. */
  get waitedMs(): number {
    return this.#waitedMs;
  }

  /** Milliseconds until the current pause ends; 0 when not paused. */
  get pausedForMs(): number {
    return Math.max(0, this.#pausedUntil - this.#clock());
  }

  /**
   * The budget right now, for progress displays: slots free in the window,
   * milliseconds until the next slot frees (0 when one is free and no pause
   * holds), and how many requests wait for one.
   */
  snapshot(): { readonly free: number; readonly nextSlotInMs: number; readonly waiting: number } {
    const now = this.#clock();
    const inWindow = this.#granted.filter((stamp) => stamp > now - this.windowMs);
    const free = Math.max(0, this.requests - inWindow.length);
    const untilSlot = free > 0 ? 0 : (inWindow[0] ?? now) + this.windowMs - now;
    return { free, nextSlotInMs: Math.max(untilSlot, this.#pausedUntil - now, 0), waiting: this.#waiting };
  }

  /**
   * Milliseconds since the service began refusing every attempt with 429
   * (the first 429 after an attempt it answered otherwise); 0 while it is
   * not. The daemon's heartbeat reports a refusal longer than its interval.
   */
  get refusingForMs(): number {
    return this.#refusingSince === undefined ? 0 : Math.max(0, this.#clock() - this.#refusingSince);
  }

  /**
   * Milliseconds from now until `count` more requests could all have been
   * granted, were they asked for now with nothing else taking a slot: the
   * free slots go at once (after any pause), each used one frees as its
   * grant leaves the window, and every window after that grants `requests`
   * more. What an ETA needs of the budget; 0 for `count` <= 0.
   */
  sendableInMs(count: number): number {
    const now = this.#clock();
    if (count <= 0) return 0;
    const start = Math.max(now, this.#pausedUntil);
    const inWindow = this.#granted.filter((stamp) => stamp > now - this.windowMs);
    // The `requests` grants before each new one, oldest first: the new one waits for the oldest to leave.
    const before = [
      ...Array<number>(Math.max(0, this.requests - inWindow.length)).fill(Number.NEGATIVE_INFINITY),
      ...inWindow.slice(-this.requests),
    ];
    const grants = before
      .slice(0, Math.min(count, this.requests))
      .map((stamp) => Math.max(start, stamp + this.windowMs));
    // From the `requests`-th on, each grant is one window after the grant `requests` before it.
    const last = count - 1;
    const at = (grants[last % this.requests] ?? start) + Math.floor(last / this.requests) * this.windowMs;
    return at - now;
  }

  /**
   * Holds every acquirer for `ms` milliseconds from now (a 429's Retry-After),
   * at most one window: within a window every slot of a rolling-window limit
   * frees, so a longer pause can only come from a broken or hostile answer,
   * and a timer past 2^31 ms fires at once (Node clamps it to 1 ms), which
   * turned a pause of 31,000 years into a busy loop. Never shortens a pause.
   */
  pauseFor(ms: number): void {
    const now = this.#clock();
    const pauseMs = Math.min(this.windowMs, Math.max(0, ms));
    this.#pausedUntil = Math.max(this.#pausedUntil, now + pauseMs);
    this.#refusingSince ??= now;
  }

  /** The service answered an attempt with something other than a 429: it no longer refuses everything. */
  answered(): void {
    this.#refusingSince = undefined;
  }

  /** Waits for a slot and takes it. Rejects with RequestAbortedError when `signal` aborts first. */
  async acquire(signal?: AbortSignal): Promise<void> {
    await this.acquireSlot(signal);
  }

  /**
   * `acquire`, resolving with `settle`, to call when the attempt's answer (or failure) is in: the
   * slot then counts from that moment. The service counts a request when it arrives, somewhere
   * between sending and answering; counting from the send frees the slot too early, and the next
   * window's first request meets a 429.
   */
  async acquireSlot(signal?: AbortSignal): Promise<() => void> {
    throwIfAborted(signal);
    const previous = this.#tail;
    let releaseTurn = (): void => {};
    const turn = new Promise<void>((resolve) => {
      releaseTurn = resolve;
    });
    this.#tail = previous.then(() => turn);
    this.#waiting += 1;
    try {
      await waitOrAbort(previous, signal);
      const grantedAt = await this.#takeSlot(signal);
      return () => this.#settle(grantedAt);
    } finally {
      this.#waiting -= 1;
      releaseTurn();
    }
  }

  /** Every stamp is at most now, so pushing now keeps `#granted` sorted. */
  #settle(grantedAt: number): void {
    const index = this.#granted.indexOf(grantedAt);
    if (index >= 0) this.#granted.splice(index, 1);
    this.#granted.push(Math.max(grantedAt, this.#clock()));
  }

  async #takeSlot(signal: AbortSignal | undefined): Promise<number> {
    for (;;) {
      throwIfAborted(signal);
      const now = this.#clock();
      while (this.#granted.length > 0 && (this.#granted[0] ?? 0) <= now - this.windowMs)
        this.#granted.shift();
      let waitMs = 0;
      if (now < this.#pausedUntil) waitMs = this.#pausedUntil - now;
      else if (this.#granted.length >= this.requests)
        waitMs = (this.#granted[0] ?? now) + this.windowMs - now;
      if (waitMs <= 0) {
        this.#granted.push(now);
        return now;
      }
      const started = now;
      try {
        await this.#sleep(waitMs, signal);
      } catch (error) {
        if (signal?.aborted) throw new RequestAbortedError({}, { cause: signal.reason });
        throw error;
      } finally {
        this.#waitedMs += Math.max(0, this.#clock() - started);
      }
    }
  }
}

/** Resolves with `promise`, or rejects as soon as `signal` aborts. */
function waitOrAbort(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(new RequestAbortedError({}, { cause: signal.reason }));
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
