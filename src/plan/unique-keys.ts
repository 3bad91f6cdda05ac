import type { Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { formatLocation } from '../manifest/source-location.js';
import { fieldEquals } from './compare-fields.js';
import { sourceOf } from './draft-action.js';
import type { PlanError } from './plan.js';
import type { KindRules, PlanInputs } from './plan-inputs.js';
import type { KeyNumber } from './planner-options.js';

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
  // The first entry of each key, by position.
  const firstOfKey = new Map<KeyNumber, number>();
  for (let at = 0; at < entries.length; at += 1) {
    const key = inputs.keys.entries[at];
    if (key === undefined) continue;
    const firstAt = firstOfKey.get(key);
    if (firstAt === undefined) {
      firstOfKey.set(key, at);
      continue;
    }
    const entry = entries[at] as DesiredEntry;
    const first = entries[firstAt] as DesiredEntry;
    const kind = inputs.kindsByName.get(entry.kind) as Kind;
    sharingKey.add(first);
    sharingKey.add(entry);
    errors.push({
      code: 'unique_key_conflict',
      message: `${entry.kind}.${entry.name}: has the same ${(kind.uniqueKey ?? []).join(' and ')} as ${first.kind}.${first.name} (${formatLocation(first.location)}); the service holds only one`,
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
  // The holder of each key: the last object read with it, as the service holds one.
  const holders = new Map<KeyNumber, LiveObject>();
  for (const object of inputs.liveById.values()) {
    if (inputs.kindsByName.get(object.kind)?.ownership !== 'metadata') continue;
    const key = inputs.keys.live.get(object);
    if (key !== undefined) holders.set(key, object);
  }
  // Holders taken by an entry that shares its key: only another such entry finds the same holder, and
  // a set of every holder taken was a set of 100,000 IDs at the plan's peak.
  const taken = new Set<string>();
  let at = -1;
  for (const entry of inputs.desired.entries) {
    at += 1;
    const key = inputs.keys.entries[at];
    if (entry.id !== undefined || key === undefined) continue;
    const kind = inputs.kindsByName.get(entry.kind) as Kind;
    const spec = inputs.specs[at] ?? entry.spec;
    const holder = holders.get(key);
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
