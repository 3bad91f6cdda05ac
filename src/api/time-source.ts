import { setTimeout as delay } from 'node:timers/promises';

/** Milliseconds since the epoch; injected so tests control time. */
export type Clock = () => number;

/**
 * Waits `ms` milliseconds; rejects when `signal` aborts. Injected so tests can
 * advance a fake clock instead of waiting.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const systemClock: Clock = () => Date.now();

/** The longest delay a Node timer keeps; a longer one fires after 1 ms with a TimeoutOverflowWarning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Never longer than a timer can wait: a caller that sleeps in a loop then wakes early and sleeps again, without spinning. */
export const systemSleep: Sleep = async (ms, signal) => {
  await delay(Math.min(ms, MAX_TIMER_MS), undefined, signal ? { signal } : {});
};
