import { REQUEST_PURPOSES, type RequestPurpose } from '../request-purpose.js';

/** Minutes of history kept: the status page's chart shows the last hour. */
export const HISTORY_MINUTES = 60;
const MINUTE_MS = 60_000;

/** Requests of the budget sent in one minute, by purpose. */
export interface MinuteRequests {
  /** Milliseconds since the epoch at the minute's start (a multiple of 60,000). */
  readonly minuteStart: number;
  readonly counts: Readonly<Record<RequestPurpose, number>>;
}

function zeroCounts(): Record<RequestPurpose, number> {
  return Object.fromEntries(REQUEST_PURPOSES.map((purpose) => [purpose, 0])) as Record<
    RequestPurpose,
    number
  >;
}

/**
 * Requests per minute by purpose over the last hour: a ring of 60 buckets,
 * one per wall-clock minute. Recording is a division and an increment; the
 * memory is the 60 buckets whatever the daemon's uptime or traffic, so a
 * daemon that runs for months holds no more than one that just started.
 */
export class RequestHistory {
  /** Slot `minute % 60`: the counts of that minute, valid while `minutes[slot]` holds it. */
  readonly #counts: Record<RequestPurpose, number>[] = Array.from({ length: HISTORY_MINUTES }, zeroCounts);
  readonly #minutes: number[] = Array.from({ length: HISTORY_MINUTES }, () => Number.NaN);

  /** Counts one request of `purpose` sent at `atMs` (milliseconds since the epoch). */
  record(purpose: RequestPurpose, atMs: number): void {
    const minute = Math.floor(atMs / MINUTE_MS);
    const slot = ((minute % HISTORY_MINUTES) + HISTORY_MINUTES) % HISTORY_MINUTES;
    const counts = this.#counts[slot] as Record<RequestPurpose, number>;
    if (this.#minutes[slot] !== minute) {
      // The slot last held a minute an hour or more ago (or none): start it over.
      for (const key of REQUEST_PURPOSES) counts[key] = 0;
      this.#minutes[slot] = minute;
    }
    counts[purpose] += 1;
  }

  /**
   * The 60 minutes that end with the one holding `nowMs`, oldest first; a
   * minute with no request (or older than the history) counts zero.
   */
  lastHour(nowMs: number): MinuteRequests[] {
    const current = Math.floor(nowMs / MINUTE_MS);
    return Array.from({ length: HISTORY_MINUTES }, (_, index) => {
      const minute = current - (HISTORY_MINUTES - 1) + index;
      const slot = ((minute % HISTORY_MINUTES) + HISTORY_MINUTES) % HISTORY_MINUTES;
      const counts = this.#minutes[slot] === minute ? { ...(this.#counts[slot] as object) } : zeroCounts();
      return { minuteStart: minute * MINUTE_MS, counts: counts as Record<RequestPurpose, number> };
    });
  }
}
