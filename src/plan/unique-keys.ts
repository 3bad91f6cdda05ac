import { canonicalJson } from '../kinds/canonical-json.js';
import type { Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { formatLocation } from '../manifest/source-location.js';
import { diffFields } from './compare-fields.js';
import { type DraftAction, sourceOf } from './draft-action.js';
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
 * An object an entry adopts by `id` is left to that entry. `sharingKey`:
 * the entries that share a key with another (checkUniqueKeys).
 */
export function matchUniqueKeys(
  inputs: PlanInputs,
  skipped: ReadonlySet<DesiredEntry>,
  sharingKey: ReadonlySet<DesiredEntry>,
): KeyMatches {
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
    if (entry.id !== undefined || skipped.has(entry) || kind?.uniqueKey === undefined) continue;
    const spec = inputs.specs[at] ?? entry.spec;
    const holder = holdersByKind.get(kind)?.holderOf(spec);
    // Two entries with one key are reported by checkUniqueKeys; the first keeps the holder.
    if (holder === undefined || adopted.has(holder.id) || taken.has(holder.id)) continue;
    if (holder.marker?.owner !== inputs.owner) {
      errors.push(keyHeld(kind, entry, holder));
      continue;
    }
    if (diffFields((inputs.rules.get(kind) as KindRules).replacingFields, spec, holder.spec, '').length > 0)
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

/** One entry's claim on an item of a unique list field (a hostport). */
interface ItemClaim {
  readonly entry: DesiredEntry;
  readonly kind: Kind;
  readonly field: string;
  readonly pointer: string;
}

/**
 * Items of unique list fields (`Kind.uniqueItems`: an edge's hostports),
 * once every entry has its live object:
 * - two entries claiming one item: `unique_key_conflict`, naming both;
 * - an item a live object holds that no entry stands for and edgesync does
 *   not own: `unique_key_taken`, naming the holder and how to adopt it.
 * An item another object of ours holds (pruned, or updated by its entry to
 * let it go) is ordering rule 3's (ordering/free-keys-before-taking.ts).
 * An entry that leaves a field out (an adopted edge) claims nothing.
 */
export function checkUniqueItems(
  inputs: PlanInputs,
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
  actions: readonly DraftAction[],
): PlanError[] {
  const errors: PlanError[] = [];
  const report = (error: PlanError): void => {
    errors.push(error);
  };
  forEachItemHeld(inputs, claims, actions, report, (claim, object, item, releases) => {
    if (releases.length === 0) report(itemHeld(claim, object, item));
  });
  return errors;
}

/**
 * The actions that take an item (a hostport) another object holds, and the
 * actions that let it go there: the item's holder's prune, or the writes of
 * the entry that stands for the holder and no longer lists the item.
 */
export interface ItemTakeover {
  readonly takers: readonly DraftAction[];
  readonly releases: readonly DraftAction[];
}

/** Every item of a unique list field that an entry claims and another object holds and lets go. */
export function itemTakeovers(
  inputs: PlanInputs,
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
  actions: readonly DraftAction[],
): ItemTakeover[] {
  const takeovers: ItemTakeover[] = [];
  forEachItemHeld(inputs, claims, actions, undefined, (claim, _object, _item, releases) => {
    if (releases.length === 0) return;
    const address = `${claim.kind.name}.${claim.entry.name}`;
    const takers = actions.filter((action) => action.change === address && action.op !== 'delete');
    takeovers.push({ takers, releases });
  });
  return takeovers;
}

/**
 * Calls `held` for every item an entry claims that a live object other than
 * the entry's own holds, with the actions that let it go there (none when
 * the holder keeps it), and `claimedTwice` with the error of every item two
 * entries claim.
 */
function forEachItemHeld(
  inputs: PlanInputs,
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
  actions: readonly DraftAction[],
  claimedTwice: ((error: PlanError) => void) | undefined,
  held: (claim: ItemClaim, holder: LiveObject, item: string, releases: readonly DraftAction[]) => void,
): void {
  const fields = new Set<string>();
  for (const kind of inputs.kindsByName.values())
    for (const field of kind.uniqueItems ?? []) fields.add(field);
  if (fields.size === 0) return;
  const claimed = new Map<string, ItemClaim>();
  for (const entry of inputs.desired.entries) {
    const kind = inputs.kindsByName.get(entry.kind);
    for (const field of kind?.uniqueItems ?? []) {
      const items = entry.spec[field];
      if (kind === undefined || !Array.isArray(items)) continue;
      items.forEach((item, index) => {
        // Host names compare without case, as the service and `validate` compare them.
        const value = `${field} ${String(item).toLowerCase()}`;
        const claim = { entry, kind, field, pointer: `/${field}/${index}` };
        const first = claimed.get(value);
        if (first === undefined) claimed.set(value, claim);
        else if (first.entry !== entry) claimedTwice?.(itemClaimedTwice(claim, first, String(item)));
      });
    }
  }
  // No entry claims an item: no live object can hold one of ours (and 100,000 rules claim none).
  if (claimed.size === 0) return;
  const ownObjectOf = new Map<DesiredEntry, string>();
  for (const [object, entry] of claims) ownObjectOf.set(entry, object.id);
  for (const object of inputs.liveById.values()) {
    for (const field of fields) {
      const items = object.spec[field];
      if (!Array.isArray(items)) continue;
      for (const item of items) {
        const claim = claimed.get(`${field} ${String(item).toLowerCase()}`);
        if (claim === undefined || ownObjectOf.get(claim.entry) === object.id) continue;
        const releases = releasesOf(claims, actions, object, field, String(item));
        if (releases !== 'claimed') held(claim, object, String(item), releases);
      }
    }
  }
}

/**
 * The actions that take `item` off a live object: its prune, or the writes
 * of the entry that stands for it when that entry no longer lists the item.
 * `claimed` when that entry lists it too (reported as two claims); none
 * when the object keeps it.
 */
function releasesOf(
  claims: ReadonlyMap<LiveObject, DesiredEntry>,
  actions: readonly DraftAction[],
  object: LiveObject,
  field: string,
  item: string,
): readonly DraftAction[] | 'claimed' {
  const entry = claims.get(object);
  const onObject = actions.filter((action) => action.objectId === object.id);
  if (entry === undefined) return onObject.filter((action) => action.op === 'delete');
  const listed = entry.spec[field];
  if (!Array.isArray(listed)) return [];
  return listed.some((value) => String(value).toLowerCase() === item.toLowerCase()) ? 'claimed' : onObject;
}

function itemClaimedTwice(claim: ItemClaim, first: ItemClaim, item: string): PlanError {
  return {
    code: 'unique_key_conflict',
    message: `${claim.entry.kind}.${claim.entry.name}: ${singular(claim.field)} ${item} is also claimed by ${first.entry.kind}.${first.entry.name} (${formatLocation(sourceOf(first.entry, first.pointer))}); the service gives it to one object only`,
    source: sourceOf(claim.entry, claim.pointer),
  };
}

function itemHeld(claim: ItemClaim, holder: LiveObject, item: string): PlanError {
  const owner = holder.marker
    ? `owned by "${holder.marker.owner}" as ${holder.kind}.${holder.marker.name}`
    : 'not owned by edgesync';
  const adoptable = holder.kind === claim.kind.name;
  const remedy = adoptable
    ? `To manage that object here, add \`id: ${holder.id}\` to this entry; otherwise change the entry or remove ${holder.id}`
    : `Change the entry, or take ${item} off ${holder.id} first`;
  return {
    code: 'unique_key_taken',
    message: `${claim.entry.kind}.${claim.entry.name}: ${singular(claim.field)} ${item} is already held by ${holder.kind} ${holder.id} (${owner}); the service gives it to one object only. ${remedy}`,
    source: sourceOf(claim.entry, claim.pointer),
    entry: { kind: claim.entry.kind, name: claim.entry.name },
  };
}

/** `hostports` → `hostport`, for messages. */
function singular(field: string): string {
  return field.endsWith('s') ? field.slice(0, -1) : field;
}
