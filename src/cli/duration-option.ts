import { OptionError } from '../errors.js';
/** Requests per rolling window: what a rate flag (`--rate-limit 120/60s`) means. */
export interface Rate {
  readonly requests: number;
  /** Milliseconds. */
  readonly windowMs: number;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const AMOUNT = String.raw`(\d+(?:\.\d+)?)\s*(ms|s|m|h)?`;
// Days only for durations (--ca-expiry-warning 30d): a rate window is at most hours.
const DURATION = new RegExp(`^\\s*${AMOUNT.replace('|h)', '|h|d)')}\\s*$`);
const RATE = new RegExp(`^\\s*(\\d+)\\s*/\\s*${AMOUNT}\\s*$`);

/**
 * Every duration flag (`--timeout`, `--grace-timeout`, `--interval`,
 * `--debounce`, `--shutdown-timeout`): `500ms`, `30s`, `5m`, `1h`, decimals
 * allowed (`1.5s`). A bare number is milliseconds, as these flags always
 * took (`--timeout 30000`). Throws with the flag and the bad value.
 */
export function parseDuration(flag: string, value: string): number {
  const match = DURATION.exec(value);
  const ms = match ? toMs(match[1], match[2] ?? 'ms') : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new OptionError(flag, `expected a duration like 500ms, 30s or 5m (found "${value}")`);
  }
  return ms;
}

/**
 * Every rate flag: `N/duration` (`120/60s`, `10/500ms`, `100/1m`). A bare
 * window is seconds (`120/60` is 120 a minute, as the service states its
 * limit). `off` only where `allowOff` says the flag can be switched off.
 */
export function parseRate(flag: string, value: string, options: { readonly allowOff: true }): Rate | 'off';
export function parseRate(flag: string, value: string, options?: { readonly allowOff?: false }): Rate;
export function parseRate(
  flag: string,
  value: string,
  options: { readonly allowOff?: boolean } = {},
): Rate | 'off' {
  if (options.allowOff === true && value.trim() === 'off') return 'off';
  const match = RATE.exec(value);
  const requests = Number(match?.[1]);
  const windowMs = match ? toMs(match[2], match[3] ?? 's') : Number.NaN;
  if (!Number.isSafeInteger(requests) || requests < 1 || !(windowMs >= 1)) {
    throw new OptionError(
      flag,
      `rate limit must look like 120/60s: requests per window, the window in ms, s, m or h (a bare number is seconds)${options.allowOff === true ? ', or off' : ''}; both above 0 (found "${value}")`,
      { code: 'invalid_rate_limit' },
    );
  }
  return { requests, windowMs };
}

/**
 * A share flag (`--read-share 25%`): a percentage above 0 and at most 100,
 * the `%` optional. Returns the fraction (0.25).
 */
export function parsePercentage(flag: string, value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(value);
  const percent = Number(match?.[1]);
  if (!(percent > 0 && percent <= 100)) {
    throw new OptionError(flag, `expected a percentage above 0 and at most 100, like 25% (found "${value}")`);
  }
  return percent / 100;
}

export function parsePositiveInteger(flag: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new OptionError(flag, `expected a whole number of at least 1 (found "${value}")`);
  }
  return parsed;
}

function toMs(amount: string | undefined, unit: string): number {
  const factor = UNIT_MS[unit];
  if (amount === undefined || factor === undefined) return Number.NaN;
  return Math.round(Number(amount) * factor);
}
