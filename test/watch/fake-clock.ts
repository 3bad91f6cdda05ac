import type { DaemonClock } from '../../src/watch/daemon-clock.js';

interface PendingTimer {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

/** A clock that moves only when the test says so; timers fire in due order. */
export class FakeClock implements DaemonClock {
  #now: number;
  #nextId = 0;
  #timers: PendingTimer[] = [];
  #waiters: { readonly ms: number; readonly resolve: () => void }[] = [];

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): () => void {
    const timer = { id: this.#nextId++, at: this.#now + ms, callback };
    this.#timers.push(timer);
    const due = this.#waiters.filter((waiter) => waiter.ms === ms);
    this.#waiters = this.#waiters.filter((waiter) => waiter.ms !== ms);
    for (const waiter of due) waiter.resolve();
    return () => {
      this.#timers = this.#timers.filter((t) => t.id !== timer.id);
    };
  }

  /**
   * Resolves once a timer due `ms` from now is pending: one already set, or
   * the next one set for `ms` (a daemon's debounce after a file event).
   */
  whenPending(ms: number): Promise<void> {
    if (this.#timers.some((timer) => timer.at - this.#now === ms)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ ms, resolve }));
  }

  /** Due times of the pending timers, relative to now, ascending. */
  pendingDelays(): number[] {
    return this.#timers.map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, firing every timer that falls due, with microtasks flushed between. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await flushMicrotasks();
      const due = this.#timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((t) => t.id !== due.id);
      this.#now = due.at;
      due.callback();
    }
    this.#now = target;
    await flushMicrotasks();
  }
}

export async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
