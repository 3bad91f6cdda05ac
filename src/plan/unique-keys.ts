import { canonicalJson } from '../canonical-json.js';
import type { Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { formatLocation } from '../manifest/source-location.js';
import { fieldEquals } from './compare-fields.js';
import { sourceOf } from './draft-action.js';
import type { PlanError } from './plan.js';
import type { KindRules, PlanInputs } from './plan-inputs.js';

/**
 * Values by the unique key of a spec, found without building a key string
 * per value: bucketed by the key's first field (a CIDR, so nearly one value
 * per bucket), then compared field by field as the ordering facts print
 * keys (ordering-facts.ts, uniqueKeyValue).
 * At 100,000 rules the key strings of the two checks below were ~85 MB,
 * promoted before they died, and most of planning's peak.
 */
class UniqueKeyIndex<V> {
  readonly #first = new Map<unknown, V>();
  /** Values whose first field's bucket already held a different key: rare. */
  readonly #more = new Map<unknown, V[]>();

  constructor(
    private readonly fields: readonly string[],
    private readonly specOf: (value: V) => Readonly<Record<string, unknown>>,
  ) {}

  holderOf(spec: Readonly<Record<string, unknown>>): V | undefined {
    const bucket = this.bucketOf(spec);
    const first = this.#first.get(bucket);
    if (first === undefined || this.sameKey(this.specOf(first), spec)) return first;
    return this.#more.get(bucket)?.find((value) => this.sameKey(this.specOf(value), spec));
  }

  /** Adds `value` under its spec's key, in place of the value already there with that key. */
  hold(spec: Readonly<Record<string, unknown>>, value: V): void {
    const bucket = this.bucketOf(spec);
    const first = this.#first.get(bucket);
    if (first === undefined || this.sameKey(this.specOf(first), spec)) {
      this.#first.set(bucket, value);
      return;
    }
    const more = this.#more.get(bucket);
    if (more === undefined) {
      this.#more.set(bucket, [value]);
      return;
    }
    const index = more.findIndex((other) => this.sameKey(this.specOf(other), spec));
    if (index === -1) more.push(value);
    else more[index] = value;
  }

  /** A string is its own bucket; any other value its JSON (a string alike only shares the bucket). */
  private bucketOf(spec: Readonly<Record<string, unknown>>): unknown {
    const value = spec[this.fields[0] ?? ''] ?? null;
    return typeof value === 'string' ? value : printedKeyPart(value);
  }

  private sameKey(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
    return this.fields.every((field) => sameKeyPart(a[field] ?? null, b[field] ?? null));
  }
}

/** Whether two values print the same in a key (uniqueKeyValue), printing them only when not both strings. */
function sameKeyPart(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'string' && typeof b === 'string') return false;
  return printedKeyPart(a) === printedKeyPart(b);
}

/** One field of a uniqueness key as the key's printed value holds it: the JSON of a list of one. */
function printedKeyPart(value: unknown): string {
  return canonicalJson([value]);
}

/** Entries that share a unique key with another, and the errors that say so. */
export interface SharedKeys {
  readonly sharingKey: ReadonlySet<DesiredEntry>;
  readonly errors: readonly PlanError[];
}

/**
 * Two entries that the service would refuse to hold at once (one rule per
 * CIDR and IP policy).
 */
export function checkUniqueKeys(inputs: PlanInputs): SharedKeys {
  const sharingKey = new Set<DesiredEntry>();
  const errors: PlanError[] = [];
  const entries = inputs.desired.entries;
  const specs = inputs.specs;
  const specOf = (at: number): Readonly<Record<string, unknown>> => specs[at] ?? {};
  // Entries by their position: the normalized specs are found there.
  const firstByKind = new Map<Kind, UniqueKeyIndex<number>>();
  let at = -1;
  for (const entry of entries) {
    at += 1;
    const kind = inputs.kindsByName.get(entry.kind);
    if (kind?.uniqueKey === undefined || kind.uniqueKey.length === 0) continue;
    let firsts = firstByKind.get(kind);
    if (firsts === undefined) {
      firsts = new UniqueKeyIndex(kind.uniqueKey, specOf);
      firstByKind.set(kind, firsts);
    }
    const spec = specOf(at);
    const firstAt = firsts.holderOf(spec);
    if (firstAt === undefined) {
      firsts.hold(spec, at);
      continue;
    }
    const first = entries[firstAt] as DesiredEntry;
    sharingKey.add(first);
    sharingKey.add(entry);
    errors.push({
      code: 'unique_key_conflict',
      message: `${entry.kind}.${entry.name}: has the same ${kind.uniqueKey.join(' and ')} as ${first.kind}.${first.name} (${formatLocation(first.location)}); the service holds only one`,
      source: entry.location,
    });
  }
  return { sharingKey, errors };
}

/**
 * An entry (without `id`) whose unique key a live object already holds:
 * - held by an object of our owner that needs no replace to match: the entry
 *   takes that object over (a rename, or a move between names) and the plan
 *   renames it with a PATCH of its marker, so the rule never stops deciding;
 * - held by an object edgesync does not own: the service would refuse the
 *   create, so the plan fails now, naming the holder and how to adopt it.
 * An object an entry adopts by `id` is left to that entry, and an entry
 * with an `id` adopts rather than matches. `sharingKey`: the entries that
 * share a key with another (checkUniqueKeys).
 */
export function matchUniqueKeys(inputs: PlanInputs, sharingKey: ReadonlySet<DesiredEntry>): KeyMatches {
  const keyMatched = new Map<DesiredEntry, LiveObject>();
  const errors: PlanError[] = [];
  const adopted = new Set<string>();
  for (const entry of inputs.desired.entries) if (entry.id !== undefined) adopted.add(entry.id);
  const holdersByKind = new Map<Kind, UniqueKeyIndex<LiveObject>>();
  for (const object of inputs.liveById.values()) {
    const kind = inputs.kindsByName.get(object.kind);
    if (kind?.ownership !== 'metadata' || kind.uniqueKey === undefined || kind.uniqueKey.length === 0)
      continue;
    let holders = holdersByKind.get(kind);
    if (holders === undefined) {
      holders = new UniqueKeyIndex(kind.uniqueKey, (holder) => holder.spec);
      holdersByKind.set(kind, holders);
    }
    holders.hold(object.spec, object);
  }
  // Holders taken by an entry that shares its key: only another such entry finds the same holder, and
  // a set of every holder taken was a set of 100,000 IDs at the plan's peak.
  const taken = new Set<string>();
  let at = -1;
  for (const entry of inputs.desired.entries) {
    at += 1;
    const kind = inputs.kindsByName.get(entry.kind);
    if (entry.id !== undefined || kind?.uniqueKey === undefined) continue;
    const spec = inputs.specs[at] ?? entry.spec;
    const holder = holdersByKind.get(kind)?.holderOf(spec);
    // Two entries with one key are reported by checkUniqueKeys; the first keeps the holder.
    if (holder === undefined || adopted.has(holder.id) || taken.has(holder.id)) continue;
    if (holder.marker?.owner !== inputs.owner) {
      errors.push(keyHeld(kind, entry, holder));
      continue;
    }
    const { replacingFields } = inputs.rules.get(kind) as KindRules;
    if (!replacingFields.every((rule) => fieldEquals(rule, spec[rule.name], holder.spec[rule.name])))
      continue;
    if (sharingKey.has(entry)) taken.add(holder.id);
    // The entry's own object, the only one of its name: matching finds it by name just the same,
    // and a converged account needs no map of 100,000 matches.
    if (holder.marker.name === entry.name && inputs.managed.get(kind.name)?.get(entry.name) === holder)
      continue;
    keyMatched.set(entry, holder);
  }
  return { keyMatched, errors };
}

/** Entries (without `id`) that take over a managed object holding their unique key, and the keys held by others. */
export interface KeyMatches {
  readonly keyMatched: ReadonlyMap<DesiredEntry, LiveObject>;
  readonly errors: readonly PlanError[];
}

function keyHeld(kind: Kind, entry: DesiredEntry, holder: LiveObject): PlanError {
  const fields = kind.uniqueKey ?? [];
  const values = fields.map((field) => `${field} ${String(holder.spec[field])}`).join(' and ');
  const owner = holder.marker
    ? `owned by "${holder.marker.owner}" as ${kind.name}.${holder.marker.name}`
    : 'not owned by edgesync';
  return {
    code: 'unique_key_taken',
    message: `${entry.kind}.${entry.name}: ${values} is already held by ${holder.id} (${owner}); the service holds only one. To manage that object here, add \`id: ${holder.id}\` to this entry; otherwise change the entry or remove ${holder.id}`,
    source: sourceOf(entry, `/${fields[0] ?? ''}`),
    entry: { kind: entry.kind, name: entry.name },
  };
}
