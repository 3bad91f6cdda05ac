import { hash } from 'node:crypto';

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
  // where the flat string is ~100 (docs/performance.md).
  // One list of pieces reused from call to call, unless a call is already using it: the live read
  // prints every object it reads (its fingerprint), 100,000 at a time. It outlives a plan, as the
  // printed keys below do (docs/architecture.md, State across plans). It keeps its capacity: written
  // over by index and cut to this call's count, not emptied, since emptying an array drops its
  // backing store and regrowing it was ~1.4 KB of garbage per object read.
  const out = sharedPieces ?? { pieces: [], count: 0 };
  sharedPieces = undefined;
  try {
    out.count = 0;
    serialize(value, out);
    out.pieces.length = out.count;
    return out.pieces.join('');
  } finally {
    // A value of many pieces (a whole document) would stay referenced: let go of those.
    if (out.count > MAX_KEPT_PIECES) out.pieces = [];
    sharedPieces = out;
  }
}

/** The pieces of the JSON being printed: `count` of them are the current call's. */
interface Pieces {
  pieces: string[];
  count: number;
}

let sharedPieces: Pieces | undefined = { pieces: [], count: 0 };
const MAX_KEPT_PIECES = 4096;

/**
 * sha256 (hex) of the canonical JSON of `value`. The one-shot `hash`, not a
 * Hash object per value: half the time for the small objects the live read
 * fingerprints, 10,000 at a time (docs/performance.md).
 */
export function canonicalHash(value: unknown): string {
  return hash('sha256', canonicalJson(value), 'hex');
}

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;
const MAX_ARRAY_INDEX = 2 ** 32 - 2;

function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && ARRAY_INDEX.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

/** A string JSON.stringify prints as itself between quotes: nothing to escape, no lone surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `"key":` for keys seen before: the same few keys (`id`, `uri`, `created_at`)
 * recur in every object read, and printing each again was garbage. Bounded,
 * as user metadata may bring any number of keys.
 */
const printedKeys = new Map<string, string>();
const MAX_PRINTED_KEYS = 4096;

function printedKey(key: string): string {
  let printed = printedKeys.get(key);
  if (printed === undefined) {
    printed = `${JSON.stringify(key)}:`;
    if (printedKeys.size < MAX_PRINTED_KEYS) printedKeys.set(key, printed);
  }
  return printed;
}

/**
 * Sorts keys in place as Array.prototype.sort would (by UTF-16 code units),
 * by insertion for the few keys objects have: the built-in sort allocated
 * its work arrays for each of 200,000 objects the live read prints.
 */
function sortKeys(keys: string[], from: number): void {
  if (keys.length - from > 32) {
    const sorted = keys.slice(from).sort();
    for (let index = 0; index < sorted.length; index += 1) keys[from + index] = sorted[index] as string;
    return;
  }
  for (let index = from + 1; index < keys.length; index += 1) {
    const key = keys[index] as string;
    let at = index - 1;
    while (at >= from && (keys[at] as string) > key) {
      keys[at + 1] = keys[at] as string;
      at -= 1;
    }
    keys[at + 1] = key;
  }
}

function isPlainValue(item: unknown): boolean {
  return item === null || typeof item !== 'object';
}

/** JSON.stringify prints nothing for these as object values, and null as array items. */
function isUnprintable(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function append(out: Pieces, piece: string): void {
  out.pieces[out.count] = piece;
  out.count += 1;
}

function serialize(value: unknown, out: Pieces): void {
  if (typeof value === 'string' && !NEEDS_ESCAPE.test(value)) {
    // The quotes around the string itself rather than a quoted copy of it.
    append(out, '"');
    append(out, value);
    append(out, '"');
    return;
  }
  if (value === null || typeof value !== 'object') {
    append(out, JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    append(out, '[');
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) append(out, ',');
      const item: unknown = value[index];
      if (isUnprintable(item)) append(out, 'null');
      else serialize(item, out);
    }
    append(out, ']');
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Object.keys lists array-index keys first, in numeric order; the rest are sorted.
  let indexKeys = 0;
  while (indexKeys < keys.length && isArrayIndex(keys[indexKeys] as string)) indexKeys += 1;
  sortKeys(keys, indexKeys);
  append(out, '{');
  let first = true;
  for (const key of keys) {
    if (key === '__proto__') continue;
    const entry = record[key];
    if (isUnprintable(entry)) continue;
    if (!first) append(out, ',');
    append(out, printedKey(key));
    serialize(entry, out);
    first = false;
  }
  append(out, '}');
}
