import { EdgesyncError } from '../errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration flag: `500ms`, `30s`, `5m`, `1h`, or a bare number of
 * milliseconds. Throws with the flag name and the bad value.
 */
export function parseDuration(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!match?.[1]) {
    throw new EdgesyncError(
      'invalid_option',
      `${flag}: expected a duration like 500ms, 30s or 5m (found "${value}")`,
    );
  }
  return Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1));
}

export function parsePositiveInteger(flag: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new EdgesyncError(
      'invalid_option',
      `${flag}: expected a whole number of at least 1 (found "${value}")`,
    );
  }
  return parsed;
}
