import type { Sleep } from '../../src/api/time-source.js';

/** A clock that moves only when something sleeps on it: waits take no real time. */
export class FakeTime {
  now: number;
  readonly sleeps: number[] = [];

  constructor(start = 0) {
    this.now = start;
  }

  readonly clock = (): number => this.now;

  readonly sleep: Sleep = async (ms, signal) => {
    signal?.throwIfAborted();
    this.sleeps.push(ms);
    this.now += ms;
  };
}

/** A sleep that really waits until aborted: for tests of abort during a wait. */
export const sleepUntilAborted: Sleep = (_ms, signal) =>
  new Promise<void>((_resolve, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

export { seededRandom } from '../support/seeded-random.js';

/** A clock whose sleeps wait until the test releases them, so a test can look at what happens meanwhile. */
export class SteppedTime {
  now = 0;
  readonly #pending: Array<{ readonly until: number; readonly resolve: () => void }> = [];
  #onSleep: (() => void) | undefined;

  readonly clock = (): number => this.now;

  readonly sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      this.#pending.push({ until: this.now + ms, resolve });
      this.#onSleep?.();
    });

  /** Resolves once something is sleeping. */
  sleeping(): Promise<void> {
    if (this.#pending.length > 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#onSleep = () => {
        this.#onSleep = undefined;
        resolve();
      };
    });
  }

  /** Moves the clock to the latest pending wake-up and wakes every sleeper. */
  release(): void {
    const sleepers = this.#pending.splice(0);
    this.now = Math.max(this.now, ...sleepers.map((sleeper) => sleeper.until));
    for (const sleeper of sleepers) sleeper.resolve();
  }
}
