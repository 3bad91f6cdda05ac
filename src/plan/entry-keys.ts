import { sameCanonicalJson } from '../json-equality.js';
import type { Kind } from '../kinds/kind.js';
import type { EntryKeyBuilders, KeyNumber, KeyNumbering } from './planner-options.js';

/**
 * The key builders: what the planner compares an entry by, worked out once
 * per desired entry (and per live object) in the plan's first phase
 * (plan-inputs.ts, the one module that imports this one), and carried from
 * there by every later phase.
 */
export const ENTRY_KEY_BUILDERS: EntryKeyBuilders = {
  comparableForm,
  keyNumbering: () => new UniqueKeyNumbering(),
};

/**
 * A spec as the planner compares it: through its kind's `normalizeDesired`
 * (defaults explicit, CIDRs canonical, set-like lists sorted), the form
 * `LiveObject.spec` is read in. Where normalizing changes nothing (same keys
 * in the same order, same values: most entries) it is the spec itself, not a
 * copy: a copy of each held for the whole plan was ~40 MB at 100,000
 * (docs/performance.md).
 */
function comparableForm(
  kind: Kind,
  spec: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const normalized = kind.normalizeDesired(spec);
  return sameSpec(spec, normalized) ? spec : normalized;
}

function sameSpec(
  spec: Readonly<Record<string, unknown>>,
  normalized: Readonly<Record<string, unknown>>,
): boolean {
  const keys = Object.keys(spec);
  const normalizedKeys = Object.keys(normalized);
  if (keys.length !== normalizedKeys.length) return false;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    if (normalizedKeys[index] !== key || spec[key] !== normalized[key]) return false;
  }
  return true;
}

/**
 * Numbers for the unique keys of one plan (Kind.uniqueKey): specs of one kind
 * whose key fields hold equal values get one number, and keys of different
 * kinds never share one. A number is a key without a string per key: printed,
 * the keys of 100,000 rules were ~12 MB, and as many again for the account's.
 *
 * Key values are equal when their canonical JSON is (sameCanonicalJson), and
 * a string, the usual case, is compared as itself. Specs are bucketed by
 * their first key field's value (a CIDR: nearly one key per bucket), then
 * compared field by field with the spec that first held each key of the
 * bucket.
 */
class UniqueKeyNumbering implements KeyNumbering {
  /** The spec that first held each key, by number. */
  readonly #holders: Readonly<Record<string, unknown>>[] = [];
  readonly #byKind = new Map<Kind, KindKeys>();

  numberOf(kind: Kind, spec: Readonly<Record<string, unknown>>): KeyNumber | undefined {
    const fields = kind.uniqueKey;
    if (fields === undefined || fields.length === 0) return undefined;
    let keys = this.#byKind.get(kind);
    if (keys === undefined) {
      keys = new KindKeys(fields, this.#holders);
      this.#byKind.set(kind, keys);
    }
    return keys.numberOf(spec);
  }
}

/** The keys of one kind numbered so far. */
class KindKeys {
  readonly #fields: readonly string[];
  readonly #holders: Readonly<Record<string, unknown>>[];
  /**
   * First field's value (a string) → the number of the key it starts, or the
   * numbers of the keys it starts (rare: one CIDR in several policies).
   */
  readonly #byFirst = new Map<string, KeyNumber | KeyNumber[]>();
  /** The same for the first values that are not strings, by scalarBucket: no kind has one. */
  readonly #byOtherFirst = new Map<string, KeyNumber | KeyNumber[]>();

  constructor(fields: readonly string[], holders: Readonly<Record<string, unknown>>[]) {
    this.#fields = fields;
    this.#holders = holders;
  }

  numberOf(spec: Readonly<Record<string, unknown>>): KeyNumber {
    const value = spec[this.#fields[0] as string];
    const isString = typeof value === 'string';
    const bucket = isString ? this.#byFirst : this.#byOtherFirst;
    const first = isString ? value : scalarBucket(value);
    const numbered = bucket.get(first);
    if (typeof numbered === 'number' && this.#sameKey(numbered, spec)) return numbered;
    if (typeof numbered === 'object') {
      for (const number of numbered) if (this.#sameKey(number, spec)) return number;
    }
    const number = this.#holders.length;
    this.#holders.push(spec);
    if (numbered === undefined) bucket.set(first, number);
    else if (typeof numbered === 'number') bucket.set(first, [numbered, number]);
    else numbered.push(number);
    return number;
  }

  #sameKey(number: KeyNumber, spec: Readonly<Record<string, unknown>>): boolean {
    const holder = this.#holders[number] as Readonly<Record<string, unknown>>;
    for (let at = 0; at < this.#fields.length; at += 1) {
      const field = this.#fields[at] as string;
      const a = holder[field];
      const b = spec[field];
      // A string against anything else never prints alike.
      if (a !== b && (typeof a === 'string' || typeof b === 'string' || !sameCanonicalJson(a, b)))
        return false;
    }
    return true;
  }
}

/**
 * The bucket of a key's first value that is not a string: a scalar by what
 * JSON prints (unset and not finite as null), every list and object in one.
 */
function scalarBucket(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  return '{}';
}
