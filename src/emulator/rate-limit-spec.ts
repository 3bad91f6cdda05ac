import { EdgesyncError } from '../errors.js';

export interface RateLimitSpec {
  readonly requests: number;
  /** Milliseconds. */
  readonly windowMs: number;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000 };

/** Parses `N/WINDOW` (`120/60s`, `10/500ms`, `100/1m`; a bare window number is seconds). */
export function parseRateLimit(text: string): RateLimitSpec {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text);
  const requests = Number(match?.[1]);
  const windowMs = Number(match?.[2]) * (UNIT_MS[match?.[3] ?? 's'] ?? 1000);
  if (!match || !Number.isSafeInteger(requests) || requests < 1 || !(windowMs >= 1)) {
    throw new EdgesyncError(
      'invalid_rate_limit',
      `rate limit must look like 120/60s (requests per window, units ms, s or m; both above 0), found "${text}"`,
    );
  }
  return { requests, windowMs: Math.round(windowMs) };
}
