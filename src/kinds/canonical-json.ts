import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted recursively and no whitespace, so that equal
 * data always serializes to the same bytes (fingerprints, metadata, hashes).
 * Like JSON.stringify, undefined object values are dropped.
 *
 * Written straight to the string instead of building a sorted copy for
 * JSON.stringify: it runs once per live object (fingerprints of 100,000 rules)
 * and the copies were most of its cost. The bytes are the ones the sorted copy
 * printed, including where that copy differed from a plain key sort: keys that
 * are array indices come first in numeric order (objects order them so), and
 * `__proto__` is left out (assigning it set the prototype instead).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  // A list of plain values (a unique key: CIDR and policy ID) has nothing to sort: JSON.stringify
  // prints the same bytes without the pieces (the planner asks several times per entry).
  if (Array.isArray(value) && value.every(isPlainValue)) return JSON.stringify(value);
  // Pieces joined once: `out +=` built a rope of ~32-byte nodes per piece, which the planner kept
  // (metadata in every request body, a unique key per action): ~500 bytes per action at 100,000
  // where the flat string is ~100 (issue 18).
  const pieces: string[] = [];
  serialize(value, pieces);
  return pieces.join('');
}

/** sha256 (hex) of the canonical JSON of `value`. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;
const MAX_ARRAY_INDEX = 2 ** 32 - 2;

function isArrayIndex(key: string): boolean {
  return ARRAY_INDEX.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

function isPlainValue(item: unknown): boolean {
  return item === null || typeof item !== 'object';
}

/** JSON.stringify prints nothing for these as object values, and null as array items. */
function isUnprintable(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function serialize(value: unknown, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    out.push(JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) out.push(',');
      const item: unknown = value[index];
      if (isUnprintable(item)) out.push('null');
      else serialize(item, out);
    }
    out.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Object.keys lists array-index keys first, in numeric order; the rest are sorted.
  let indexKeys = 0;
  while (indexKeys < keys.length && isArrayIndex(keys[indexKeys] as string)) indexKeys += 1;
  const ordered =
    indexKeys === 0 ? keys.sort() : keys.slice(0, indexKeys).concat(keys.slice(indexKeys).sort());
  out.push('{');
  let first = true;
  for (const key of ordered) {
    if (key === '__proto__') continue;
    const entry = record[key];
    if (isUnprintable(entry)) continue;
    out.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    serialize(entry, out);
    first = false;
  }
  out.push('}');
}
