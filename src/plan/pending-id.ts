import type { PendingId } from './plan.js';

export function isPendingId(value: unknown): value is PendingId {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$createdBy' && typeof (value as PendingId).$createdBy === 'string';
}

/** Keys of the create actions whose IDs `value` (a request body) waits for. */
export function pendingKeysIn(value: unknown): string[] {
  if (isPendingId(value)) return [value.$createdBy];
  if (Array.isArray(value)) return value.flatMap((item) => pendingKeysIn(item));
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(pendingKeysIn);
  return [];
}

/**
 * A request path segment standing for the ID an earlier create returns, for
 * the follow-up update of a field the create cannot carry (FieldRule
 * `setAfterCreate`): `/reserved_addrs/{create:reserved_addrs.bastion}`. The
 * executor replaces it like a PendingId in a body.
 */
export function pendingPathSegment(createKey: string): string {
  return `{${createKey}}`;
}

/** Keys of the creates whose IDs a request path waits for. */
export function pendingKeysInPath(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1] as string);
}

/** `path` with every pending segment replaced by the created ID; undefined when one is not known yet. */
export function resolvePendingPath(
  path: string,
  createdIds: ReadonlyMap<string, string>,
): string | undefined {
  let missing = false;
  const resolved = path.replace(/\{([^{}]+)\}/g, (_segment, key: string) => {
    const id = createdIds.get(key);
    if (id === undefined) missing = true;
    return id ?? '';
  });
  return missing ? undefined : resolved;
}
