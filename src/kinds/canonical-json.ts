import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted recursively and no whitespace, so that equal
 * data always serializes to the same bytes (fingerprints, metadata, hashes).
 * Like JSON.stringify, undefined object values are dropped.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value));
}

/** sha256 (hex) of the canonical JSON of `value`. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const entry = (value as Record<string, unknown>)[key];
    if (entry !== undefined) sorted[key] = sortKeysDeep(entry);
  }
  return sorted;
}
