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

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
