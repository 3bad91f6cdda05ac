import { canonicalJson } from '../kinds/canonical-json.js';
import type { FieldRule, Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { formatLocation } from '../manifest/source-location.js';
import { diffFields } from './compare-fields.js';
import { addDependency, type DraftAction, deleteDependency, sourceOf } from './draft-action.js';
import { normalizedSpecOf, type PlanState } from './plan-state.js';

/** The uniqueness-key value of a spec, prefixed by kind; undefined for kinds without one. */
export function uniqueKeyValue(kind: Kind, spec: Readonly<Record<string, unknown>>): string | undefined {
  if (kind.uniqueKey === undefined || kind.uniqueKey.length === 0) return undefined;
  // Joined, not a template: the template made a rope of ~180 bytes per key, where the flat string
  // join makes is ~80, and a plan of 100,000 creates holds one per action (issue 18).
  return [kind.name, ':', canonicalJson(kind.uniqueKey.map((field) => spec[field] ?? null))].join('');
}

/**
 * Values by the unique key of a spec, found without building a key string
 * per value: bucketed by the key's first field (a CIDR, so nearly one value
 * per bucket), then compared field by field as `uniqueKeyValue` compares.
 * At 100,000 rules the key strings of the two checks below were ~85 MB,
 * promoted before they died, and most of planning's peak (issue 18).
 */
class UniqueKeyIndex<V> {
  readonly #first = new Map<unknown, V>();
  /** Values whose first field's bucket already held a different key: rare. */
  readonly #more = new Map<unknown, V[]>();

  constructor(
    private readonly fields: readonly string[],
    private readonly specOf: (value: V) => Readonly<Record<string, unknown>>,
  ) {}

  get(spec: Readonly<Record<string, unknown>>): V | undefined {
    const bucket = this.bucketOf(spec);
    const first = this.#first.get(bucket);
    if (first === undefined || this.sameKey(this.specOf(first), spec)) return first;
    return this.#more.get(bucket)?.find((value) => this.sameKey(this.specOf(value), spec));
  }

  /** Adds `value` under its spec's key, in place of the value already there with that key. */
  set(spec: Readonly<Record<string, unknown>>, value: V): void {
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
    return typeof value === 'string' ? value : canonicalJson([value]);
  }

  private sameKey(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
    return this.fields.every((field) => sameKeyPart(a[field] ?? null, b[field] ?? null));
  }
}

/** Whether two values print the same in `uniqueKeyValue`, printing them only when not both strings. */
function sameKeyPart(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'string' && typeof b === 'string') return false;
  return canonicalJson([a]) === canonicalJson([b]);
}

/**
 * Two entries that the service would refuse to hold at once (one rule per
 * CIDR and IP policy). Returns the entries that share a key with another.
 */
export function checkUniqueKeys(state: PlanState): ReadonlySet<DesiredEntry> {
  const sharingKey = new Set<DesiredEntry>();
  const firstByKind = new Map<Kind, UniqueKeyIndex<DesiredEntry>>();
  for (const entry of state.desired.entries) {
    const kind = state.kindsByName.get(entry.kind);
    if (kind?.uniqueKey === undefined || kind.uniqueKey.length === 0) continue;
    let firsts = firstByKind.get(kind);
    if (firsts === undefined) {
      firsts = new UniqueKeyIndex(kind.uniqueKey, (other) => normalizedSpecOf(state, kind, other));
      firstByKind.set(kind, firsts);
    }
    const spec = normalizedSpecOf(state, kind, entry);
    const first = firsts.get(spec);
    if (first === undefined) {
      firsts.set(spec, entry);
      continue;
    }
    sharingKey.add(first);
    sharingKey.add(entry);
    state.errors.push({
      code: 'unique_key_conflict',
      message: `${entry.kind}.${entry.name}: has the same ${kind.uniqueKey.join(' and ')} as ${first.kind}.${first.name} (${formatLocation(first.location)}); the service holds only one`,
      source: entry.location,
    });
  }
  return sharingKey;
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
  state: PlanState,
  skipped: ReadonlySet<DesiredEntry>,
  sharingKey: ReadonlySet<DesiredEntry>,
): void {
  const adopted = new Set<string>();
  for (const entry of state.desired.entries) if (entry.id !== undefined) adopted.add(entry.id);
  const holdersByKind = new Map<Kind, UniqueKeyIndex<LiveObject>>();
  for (const object of state.liveById.values()) {
    const kind = state.kindsByName.get(object.kind);
    if (kind?.ownership !== 'metadata' || kind.uniqueKey === undefined || kind.uniqueKey.length === 0)
      continue;
    let holders = holdersByKind.get(kind);
    if (holders === undefined) {
      holders = new UniqueKeyIndex(kind.uniqueKey, (holder) => holder.spec);
      holdersByKind.set(kind, holders);
    }
    holders.set(object.spec, object);
  }
  // Holders taken by an entry that shares its key: only another such entry finds the same holder, and
  // a set of every holder taken was a set of 100,000 IDs at the plan's peak (issue 18).
  const taken = new Set<string>();
  const forcingRules = new Map<Kind, readonly FieldRule[]>();
  for (const entry of state.desired.entries) {
    const kind = state.kindsByName.get(entry.kind);
    if (entry.id !== undefined || skipped.has(entry) || kind?.uniqueKey === undefined) continue;
    const spec = normalizedSpecOf(state, kind, entry);
    const holder = holdersByKind.get(kind)?.get(spec);
    // Two entries with one key are reported by checkUniqueKeys; the first keeps the holder.
    if (holder === undefined || adopted.has(holder.id) || taken.has(holder.id)) continue;
    if (holder.marker?.owner !== state.options.owner) {
      reportKeyHeld(state, kind, entry, holder);
      continue;
    }
    let forcing = forcingRules.get(kind);
    if (forcing === undefined) {
      forcing = kind.fields.filter((rule) => rule.onChange === 'replace');
      forcingRules.set(kind, forcing);
    }
    if (diffFields(forcing, spec, holder.spec, '').length > 0) continue;
    if (sharingKey.has(entry)) taken.add(holder.id);
    // The entry's own object, the only one of its name: matchLive finds it by name just the same,
    // and a converged account needs no map of 100,000 matches (issue 18).
    if (holder.marker.name === entry.name && state.managed.get(kind.name)?.get(entry.name) === holder)
      continue;
    state.keyMatched.set(entry, holder);
  }
}

function reportKeyHeld(state: PlanState, kind: Kind, entry: DesiredEntry, holder: LiveObject): void {
  const fields = kind.uniqueKey ?? [];
  const values = fields.map((field) => `${field} ${String(holder.spec[field])}`).join(' and ');
  const owner = holder.marker
    ? `owned by "${holder.marker.owner}" as ${kind.name}.${holder.marker.name}`
    : 'not owned by edgesync';
  state.errors.push({
    code: 'unique_key_taken',
    message: `${entry.kind}.${entry.name}: ${values} is already held by ${holder.id} (${owner}); the service holds only one. To manage that object here, add \`id: ${holder.id}\` to this entry; otherwise change the entry or remove ${holder.id}`,
    source: sourceOf(entry, `/${fields[0] ?? ''}`),
    entry: { kind: entry.kind, name: entry.name },
  });
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
 *   not own: `unique_key_taken`, naming the holder and how to adopt it;
 * - an item another object of ours holds (pruned, or updated by its entry to
 *   let it go): the actions of the entry that takes it wait for every action
 *   on that object, so the service never sees two edges serving it.
 * An entry that leaves a field out (an adopted edge) claims nothing.
 */
export function checkUniqueItems(state: PlanState): void {
  const fields = new Set<string>();
  for (const kind of state.kindsByName.values())
    for (const field of kind.uniqueItems ?? []) fields.add(field);
  if (fields.size === 0) return;
  const claims = new Map<string, ItemClaim>();
  for (const entry of state.desired.entries) {
    const kind = state.kindsByName.get(entry.kind);
    for (const field of kind?.uniqueItems ?? []) {
      const items = entry.spec[field];
      if (kind === undefined || !Array.isArray(items)) continue;
      items.forEach((item, index) => {
        // Host names compare without case, as the service and `validate` compare them.
        const value = `${field} ${String(item).toLowerCase()}`;
        const claim = { entry, kind, field, pointer: `/${field}/${index}` };
        const first = claims.get(value);
        if (first === undefined) claims.set(value, claim);
        else if (first.entry !== entry) reportItemClaimedTwice(state, claim, first, String(item));
      });
    }
  }
  // No entry claims an item: no live object can hold one of ours (and 100,000 rules claim none).
  if (claims.size === 0) return;
  const ownObjectOf = new Map<DesiredEntry, string>();
  for (const [object, entry] of state.entryByObject) ownObjectOf.set(entry, object.id);
  for (const object of state.liveById.values()) {
    for (const field of fields) {
      const items = object.spec[field];
      if (!Array.isArray(items)) continue;
      for (const item of items) {
        const claim = claims.get(`${field} ${String(item).toLowerCase()}`);
        if (claim === undefined || ownObjectOf.get(claim.entry) === object.id) continue;
        const releases = releasesOf(state, object, field, String(item));
        if (releases === 'claimed') continue;
        if (releases.length === 0) {
          reportItemHeld(state, claim, object, String(item));
          continue;
        }
        const takers = state.actions.filter(
          (action) => action.change === `${claim.kind.name}.${claim.entry.name}` && action.op !== 'delete',
        );
        for (const taker of takers) {
          for (const release of releases) {
            // A second copy of the taker's own entry waits for the kept copy
            // (plan-prunes.ts), but the service gives the item to the kept copy
            // only once the other lets it go: that copy goes first.
            deleteDependency(release, taker.key);
            addDependency(taker, release.key);
          }
        }
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
  state: PlanState,
  object: LiveObject,
  field: string,
  item: string,
): readonly DraftAction[] | 'claimed' {
  const entry = state.entryByObject.get(object);
  const actions = state.actions.filter((action) => action.objectId === object.id);
  if (entry === undefined) return actions.filter((action) => action.op === 'delete');
  const listed = entry.spec[field];
  if (!Array.isArray(listed)) return [];
  return listed.some((value) => String(value).toLowerCase() === item.toLowerCase()) ? 'claimed' : actions;
}

function reportItemClaimedTwice(state: PlanState, claim: ItemClaim, first: ItemClaim, item: string): void {
  state.errors.push({
    code: 'unique_key_conflict',
    message: `${claim.entry.kind}.${claim.entry.name}: ${singular(claim.field)} ${item} is also claimed by ${first.entry.kind}.${first.entry.name} (${formatLocation(sourceOf(first.entry, first.pointer))}); the service gives it to one object only`,
    source: sourceOf(claim.entry, claim.pointer),
  });
}

function reportItemHeld(state: PlanState, claim: ItemClaim, holder: LiveObject, item: string): void {
  const owner = holder.marker
    ? `owned by "${holder.marker.owner}" as ${holder.kind}.${holder.marker.name}`
    : 'not owned by edgesync';
  const adoptable = holder.kind === claim.kind.name;
  const remedy = adoptable
    ? `To manage that object here, add \`id: ${holder.id}\` to this entry; otherwise change the entry or remove ${holder.id}`
    : `Change the entry, or take ${item} off ${holder.id} first`;
  state.errors.push({
    code: 'unique_key_taken',
    message: `${claim.entry.kind}.${claim.entry.name}: ${singular(claim.field)} ${item} is already held by ${holder.kind} ${holder.id} (${owner}); the service gives it to one object only. ${remedy}`,
    source: sourceOf(claim.entry, claim.pointer),
    entry: { kind: claim.entry.kind, name: claim.entry.name },
  });
}

/** `hostports` → `hostport`, for messages. */
function singular(field: string): string {
  return field.endsWith('s') ? field.slice(0, -1) : field;
}
