import { EdgesyncError } from '../errors.js';

/**
 * The two stages of stopping an apply. When `signal` aborts, the apply is
 * stopping: no new action starts. `graceMs` later `inFlight` aborts, which
 * aborts every request still running.
 */
export class Interruption {
  readonly #graceMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #inFlight = new AbortController();
  readonly #listeners: Array<() => void> = [];
  readonly #onAbort = (): void => this.#stop();
  #graceTimer: NodeJS.Timeout | undefined;

  constructor(graceMs: number, signal?: AbortSignal) {
    this.#graceMs = graceMs;
    this.#signal = signal;
    if (signal?.aborted) this.#stop();
    else signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Aborts once the grace period after the stop has passed: what every request listens to. */
  get inFlight(): AbortSignal {
    return this.#inFlight.signal;
  }

  /** The signal that stops new work (the caller's). */
  get stopSignal(): AbortSignal | undefined {
    return this.#signal;
  }

  get stopping(): boolean {
    return this.#graceTimer !== undefined || this.#inFlight.signal.aborted;
  }

  /** Calls `listener` when the apply starts stopping, or now if it already has. */
  onStop(listener: () => void): void {
    if (this.stopping) listener();
    else this.#listeners.push(listener);
  }

  dispose(): void {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    if (this.#graceTimer !== undefined) clearTimeout(this.#graceTimer);
  }

  #stop(): void {
    if (this.stopping) return;
    this.#graceTimer = setTimeout(
      () => this.#inFlight.abort(new EdgesyncError('interrupted', 'apply interrupted')),
      this.#graceMs,
    );
    this.#graceTimer.unref();
    for (const listener of this.#listeners.splice(0)) listener();
  }
}
