/**
 * Large JSON documents written piece by piece. A plan of 100,000 creates is
 * about 190 MB of JSON: built as one object tree and stringified as one
 * string, it needed about 700 MB (docs/performance.md). `jsonChunks` yields the same
 * text as `JSON.stringify(value, null, indent)` in pieces, and the lists
 * marked with `lazyJsonArray` or `lazyJsonEntries` are turned into JSON one
 * item at a time, so only one item's JSON is held at once.
 */

const LAZY = Symbol('lazy JSON');

/** A JSON array whose items are made by `toJson` as it is written, one at a time. */
export interface LazyJsonArray {
  readonly [LAZY]: 'array';
  readonly length: number;
  items(): Iterable<unknown>;
}

/** A JSON object whose values are made by `toJson` as it is written, one key at a time. */
export interface LazyJsonEntries {
  readonly [LAZY]: 'entries';
  readonly size: number;
  entries(): Iterable<readonly [string, unknown]>;
}

export function lazyJsonArray<T>(items: readonly T[], toJson: (item: T) => unknown): LazyJsonArray {
  return {
    [LAZY]: 'array',
    length: items.length,
    *items() {
      for (const item of items) yield toJson(item);
    },
  };
}

/** A record's own enumerable string keys in `Object.entries` order, as JSON.stringify writes them. */
export function lazyJsonEntries(record: Readonly<Record<string, unknown>>): LazyJsonEntries {
  const keys = Object.keys(record);
  return {
    [LAZY]: 'entries',
    size: keys.length,
    *entries() {
      for (const key of keys) yield [key, record[key]];
    },
  };
}

function isLazy(value: unknown): value is LazyJsonArray | LazyJsonEntries {
  return typeof value === 'object' && value !== null && LAZY in value;
}

/** What JSON.stringify leaves out of an object, and writes as null in an array. */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** An object JSON.stringify writes key by key (no toJSON of its own): ours to stream. */
function isStreamableObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !('toJSON' in value);
}

/**
 * `JSON.stringify(value, null, indent)` in pieces, lazy lists written as
 * the arrays and objects they stand for. Objects and arrays are opened
 * here, piece by piece, down to `streamDepth`, and lazy lists wherever they
 * are reached; below, each value is stringified whole, so a lazy list must
 * sit where every container above it is opened here. Joined, the pieces are
 * exactly JSON.stringify's text.
 */
export function* jsonChunks(value: unknown, indent: number, streamDepth = 1): Generator<string> {
  // Without an indent JSON.stringify writes no line breaks, and the pieces here always do.
  if (!Number.isInteger(indent) || indent < 1)
    throw new RangeError(`indent must be 1 or more, not ${indent}`);
  yield* valueChunks(value, indent, streamDepth, 0);
}

function* valueChunks(value: unknown, indent: number, streamDepth: number, depth: number): Generator<string> {
  const container = containerOf(value, depth < streamDepth);
  if (container !== undefined) {
    yield* containerChunks(container, indent, streamDepth, depth);
    return;
  }
  // Only reached for values JSON.stringify writes (omitted ones are left out by objectMembers).
  const text = JSON.stringify(value, null, indent) ?? 'null';
  // JSON.stringify escapes every newline inside strings: each raw one starts a line to indent.
  yield depth === 0 ? text : text.replaceAll('\n', `\n${' '.repeat(indent * depth)}`);
}

/** The container to open here: a lazy list always, an array or plain object when `open` (above streamDepth). */
function containerOf(value: unknown, open: boolean): Container | undefined {
  if (isLazy(value))
    return value[LAZY] === 'array' ? arrayMembers(value.items()) : objectMembers(value.entries());
  if (!open) return undefined;
  if (Array.isArray(value)) return arrayMembers(value);
  if (isStreamableObject(value)) return objectMembers(Object.entries(value));
  return undefined;
}

/** An array or object to write member by member: its brackets and each member's label and value. */
interface Container {
  readonly brackets: '[]' | '{}';
  members(): Iterable<readonly [label: string, value: unknown]>;
}

/** An array's items, unlabelled; what JSON.stringify leaves out of objects is null in an array. */
function arrayMembers(items: Iterable<unknown>): Container {
  return {
    brackets: '[]',
    *members() {
      for (const item of items) yield ['', isOmitted(item) ? null : item] as const;
    },
  };
}

/** An object's members labelled `"key": `, without those JSON.stringify leaves out. */
function objectMembers(entries: Iterable<readonly [string, unknown]>): Container {
  return {
    brackets: '{}',
    *members() {
      for (const [key, value] of entries)
        if (!isOmitted(value)) yield [`${JSON.stringify(key)}: `, value] as const;
    },
  };
}

function* containerChunks(
  container: Container,
  indent: number,
  streamDepth: number,
  depth: number,
): Generator<string> {
  const [open, close] = container.brackets;
  const inner = `\n${' '.repeat(indent * (depth + 1))}`;
  let first = true;
  for (const [label, value] of container.members()) {
    yield `${first ? open : ','}${inner}${label}`;
    first = false;
    yield* valueChunks(value, indent, streamDepth, depth + 1);
  }
  yield first ? container.brackets : `\n${' '.repeat(indent * depth)}${close}`;
}
