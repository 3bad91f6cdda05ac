export interface FailureBackoffOptions {
  /** Delay after the first failure, milliseconds. @default 1000 */
  readonly initialMs?: number;
  /** Upper bound of the delay, milliseconds. @default 300000 (5 minutes) */
  readonly maxMs?: number;
  /** Spread of the delay, as a fraction either way, so that replicas do not retry in lockstep. @default 0.1 */
  readonly jitter?: number;
}

/**
 * Delay before retrying after `failures` consecutive failed reconciles:
 * doubles from `initialMs`, capped at `maxMs`, spread by ±`jitter`.
 * `random` returns a number in [0, 1); 0.5 means no spread.
 */
export function failureBackoffMs(
  failures: number,
  random: () => number,
  options: FailureBackoffOptions = {},
): number {
  const initialMs = options.initialMs ?? 1000;
  const maxMs = options.maxMs ?? 300_000;
  const jitter = options.jitter ?? 0.1;
  const exponent = Math.max(0, failures - 1);
  // 2 ** 30 already exceeds any sane cap; bounding the exponent avoids Infinity.
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(exponent, 30));
  return Math.min(maxMs, Math.round(spread(base, jitter, random)));
}

/** `value` moved by up to ±`fraction` of itself. */
export function spread(value: number, fraction: number, random: () => number): number {
  return value * (1 + fraction * (2 * random() - 1));
}
