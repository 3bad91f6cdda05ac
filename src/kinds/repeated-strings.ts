/**
 * One copy of strings that recur across the objects of a read: the policy
 * every rule names, the owner in every marker. JSON.parse gives each object
 * its own copy, and the live state of 100,000 rules kept 100,000 of each
 * (docs/performance.md). Bounded: once full it starts again, so a daemon reading for
 * months holds at most this many. It outlives a plan (docs/architecture.md,
 * State across plans).
 */
const copies = new Map<string, string>();
const MAX_COPIES = 10_000;

/** The copy of `value` seen before, or `value` itself, kept for next time. */
export function sharedCopy(value: string): string {
  const copy = copies.get(value);
  if (copy !== undefined) return copy;
  if (copies.size >= MAX_COPIES) copies.clear();
  copies.set(value, value);
  return value;
}

let lastTimestamp = '';

/**
 * `value`, or the equal timestamp given just before it. Objects are listed
 * in the order they were made, and those one apply made share their
 * `created_at` second: two a second within the service's budget, more where
 * the budget is higher or the objects were imported. One copy of each run,
 * without a lookup table that distinct timestamps would fill.
 */
export function repeatedTimestamp(value: string): string {
  if (value === lastTimestamp) return lastTimestamp;
  lastTimestamp = value;
  return value;
}
