/**
 * Time as the daemon sees it. Injected so that tests drive debounce, backoff
 * and resync timers without waiting on the wall clock.
 */
export interface DaemonClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `ms` milliseconds; the returned function cancels it. */
  setTimeout(callback: () => void, ms: number): () => void;
}

export function systemClock(): DaemonClock {
  return {
    now: () => Date.now(),
    setTimeout: (callback, ms) => {
      const handle = setTimeout(callback, ms);
      return () => clearTimeout(handle);
    },
  };
}
