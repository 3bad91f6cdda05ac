import { EdgesyncError } from '../errors.js';
import { FAILURES_BEFORE_SENDING } from '../peer/peer-failure.js';
import type { HttpMethod } from './edge-api.js';
import type { NetworkFailure } from './network-error.js';

/** What went wrong with one attempt. */
export type AttemptFailure =
  | {
      readonly type: 'response';
      readonly status: number;
      /** The raw `Retry-After` header, if any. */
      readonly retryAfter?: string | null;
    }
  | { readonly type: 'network'; readonly failure: NetworkFailure };

export interface RetryInput {
  readonly method: HttpMethod;
  /** Attempts made so far, the failed one included (1 after the first). */
  readonly attempt: number;
  readonly failure: AttemptFailure;
  /** Milliseconds already waited between earlier attempts of this request. */
  readonly waitedMs: number;
}

export type RetryDecision =
  | {
      readonly retry: true;
      /** Milliseconds to wait before the next attempt. */
      readonly delayMs: number;
      /** `retry-after`: the service said how long; `backoff`: computed. */
      readonly source: 'retry-after' | 'backoff';
      /** The Retry-After asked for more than `maxRetryAfterMs`: the milliseconds it asked for. */
      readonly cappedFromMs?: number;
    }
  | {
      readonly retry: false;
      readonly reason: 'not_retryable' | 'write_may_have_applied' | 'attempts_exhausted' | 'wait_exhausted';
    };

export interface RetryPolicyOptions {
  /** Attempts per request, the first included. @default 5 */
  readonly maxAttempts?: number;
  /** Upper bound of the sum of waits between attempts of one request, in milliseconds. @default 60000 */
  readonly maxTotalWaitMs?: number;
  /** Backoff base: the ceiling of the first retry's wait, in milliseconds. @default 500 */
  readonly baseDelayMs?: number;
  /** Ceiling of any one backoff wait, in milliseconds. @default 15000 */
  readonly maxDelayMs?: number;
  /** Uniform random in [0, 1) for full jitter; seeded in tests. @default Math.random */
  readonly random?: () => number;
  /** Current time in milliseconds, to read an HTTP-date `Retry-After`. @default Date.now */
  readonly clock?: () => number;
  /**
   * Longest wait a `Retry-After` is taken for, in milliseconds: the service's
   * rolling window (the client passes its budget's). Within one window every
   * slot of a rolling-window limit frees, so a longer answer is a broken or
   * hostile service; waiting it out would stop the run for as long as it
   * says (31,000 years were seen). @default 60000
   */
  readonly maxRetryAfterMs?: number;
}

export interface RetryPolicy {
  decide(input: RetryInput): RetryDecision;
}

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);
const SERVER_ERROR_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/**
 * True when a failed attempt may have been applied by the service: it was
 * sent and no answer says it was refused. A 5xx counts, since the service may
 * fail after applying (and a 503 sent before applying looks the same).
 */
export function mayHaveApplied(failure: AttemptFailure): boolean {
  if (failure.type === 'response') return SERVER_ERROR_STATUSES.has(failure.status);
  return !FAILURES_BEFORE_SENDING.includes(failure.failure);
}

/**
 * Reads `Retry-After`: delta seconds or an HTTP date. Returns milliseconds
 * (0 for a date in the past), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * Whether and how long to wait before another attempt. GET, PUT, PATCH and
 * DELETE are idempotent here and retried on 429, 5xx and network failures
 * (but not a rejected certificate, which the next attempt meets again). A
 * POST is retried only when the failure proves nothing was applied (a 429, or
 * a connection that failed before sending: refused, DNS, connect timeout); otherwise the caller gets
 * `write_may_have_applied` and must resolve the outcome by lookup.
 */
export function createRetryPolicy(options: RetryPolicyOptions = {}): RetryPolicy {
  const maxAttempts = options.maxAttempts ?? 5;
  const maxTotalWaitMs = options.maxTotalWaitMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 15_000;
  const random = options.random ?? Math.random;
  const clock = options.clock ?? Date.now;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  requireNonNegative('maxAttempts', maxAttempts, 1);
  requireNonNegative('maxRetryAfterMs', maxRetryAfterMs, 0);
  requireNonNegative('maxTotalWaitMs', maxTotalWaitMs, 0);
  requireNonNegative('baseDelayMs', baseDelayMs, 0);
  requireNonNegative('maxDelayMs', maxDelayMs, 0);

  function backoff(attempt: number): number {
    // Full jitter (uniform in [0, ceiling)) spreads retries of many clients
    // that failed together, instead of having them return in waves.
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(random() * ceiling);
  }

  return {
    decide({ method, attempt, failure, waitedMs }) {
      if (failure.type === 'response' && !RETRYABLE_STATUSES.has(failure.status)) {
        return { retry: false, reason: 'not_retryable' };
      }
      // A handshake that failed on what the server is fails the same way every time.
      if (
        failure.type === 'network' &&
        (failure.failure === 'certificate_rejected' || failure.failure === 'plain_http')
      ) {
        return { retry: false, reason: 'not_retryable' };
      }
      if (method === 'POST' && mayHaveApplied(failure))
        return { retry: false, reason: 'write_may_have_applied' };
      if (attempt >= maxAttempts) return { retry: false, reason: 'attempts_exhausted' };
      const retryAfterMs =
        failure.type === 'response' && (failure.status === 429 || failure.status === 503)
          ? parseRetryAfter(failure.retryAfter, clock())
          : undefined;
      // A capped wait is one retry like any other: a service that keeps answering 429 meets maxAttempts.
      const decision: Extract<RetryDecision, { retry: true }> =
        retryAfterMs === undefined
          ? { retry: true, delayMs: backoff(attempt), source: 'backoff' }
          : retryAfterMs > maxRetryAfterMs
            ? { retry: true, delayMs: maxRetryAfterMs, source: 'retry-after', cappedFromMs: retryAfterMs }
            : { retry: true, delayMs: retryAfterMs, source: 'retry-after' };
      if (waitedMs + decision.delayMs > maxTotalWaitMs) return { retry: false, reason: 'wait_exhausted' };
      return decision;
    },
  };
}

function requireNonNegative(name: string, value: number, min: number): void {
  if (!Number.isFinite(value) || value < min) {
    throw new EdgesyncError(
      'invalid_option',
      `retry policy: ${name} must be a number >= ${min} (found ${value})`,
    );
  }
}
