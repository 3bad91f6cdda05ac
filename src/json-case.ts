/**
 * Every JSON edgesync writes for machines has snake_case keys, as the
 * service's API does. These convert records whose keys are all our own
 * identifiers (never map keys such as IDs or user metadata) at that boundary.
 */
export function snakeCaseKey(key: string): string {
  return key.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`);
}

export function camelCaseKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase());
}

/** A deep copy with every object key passed through `rename`. */
export function renameKeysDeep(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeysDeep(item, rename));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [rename(key), renameKeysDeep(item, rename)]),
  );
}
