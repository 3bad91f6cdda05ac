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

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): () => void {
    const timer = { id: this.#nextId++, at: this.#now + ms, callback };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t.id !== timer.id);
    };
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
