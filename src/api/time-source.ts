import { setTimeout as delay } from 'node:timers/promises';

/** Milliseconds since the epoch; injected so tests control time. */
export type Clock = () => number;

/**
 * Waits `ms` milliseconds; rejects when `signal` aborts. Injected so tests can
 * advance a fake clock instead of waiting.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const systemClock: Clock = () => Date.now();

export const systemSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, signal ? { signal } : {});
};
