/**
 * A JSON object (not null, not an array): what parsed JSON, API answers,
 * manifest specs and saved plans are checked against. The one copy, below
 * every folder, like errors.ts.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a JSON object, otherwise undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
