import { EdgesyncError } from '../errors.js';

/**
 * The stages of stopping an apply, from the first signal on:
 * 1. at once, `stopped`: no new action starts, and no request that waits to
 *    be sent (request budget, backoff) is sent;
 * 2. after the first half of `graceMs`, `inFlight`: requests still on the
 *    wire are aborted, their outcome unknown;
 * 3. after all of `graceMs`, `settle`: the lookups and read-backs that settle
 *    unknown outcomes are aborted too. The apply then reports and exits.
 * Half and half, because a request that has not answered in half the grace
 * period is unlikely to answer soon, and settling it costs a listing or a GET.
 */
export class Interruption {
  readonly #graceMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #stopped = new AbortController();
  readonly #inFlight = new AbortController();
  readonly #settle = new AbortController();
  readonly #listeners: Array<() => void> = [];
  readonly #onAbort = (): void => this.#stop();
  readonly #timers: NodeJS.Timeout[] = [];

  constructor(graceMs: number, signal?: AbortSignal) {
    this.#graceMs = graceMs;
    this.#signal = signal;
    if (signal?.aborted) this.#stop();
    else signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Aborts at the stop: what waits to be sent, and the scheduler, listen to it. */
  get stopped(): AbortSignal {
    return this.#stopped.signal;
  }

  /** Aborts half the grace period after the stop: what requests on the wire listen to. */
  get inFlight(): AbortSignal {
    return this.#inFlight.signal;
  }

  /** Aborts when the grace period has passed: what settling lookups listen to. */
  get settle(): AbortSignal {
    return this.#settle.signal;
  }

  get stopping(): boolean {
    return this.#stopped.signal.aborted;
  }

  /** Calls `listener` when the apply starts stopping, or now if it already has. */
  onStop(listener: () => void): void {
    if (this.stopping) listener();
    else this.#listeners.push(listener);
  }

  dispose(): void {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    for (const timer of this.#timers) clearTimeout(timer);
  }

  #stop(): void {
    if (this.stopping) return;
    const reason = new EdgesyncError('interrupted', 'apply interrupted');
    this.#stopped.abort(reason);
    this.#after(this.#graceMs / 2, () => this.#inFlight.abort(reason));
    this.#after(this.#graceMs, () => this.#settle.abort(reason));
    for (const listener of this.#listeners.splice(0)) listener();
  }

  #after(ms: number, action: () => void): void {
    const timer = setTimeout(action, ms);
    timer.unref();
    this.#timers.push(timer);
  }
}
