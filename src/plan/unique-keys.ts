import { canonicalJson } from '../kinds/canonical-json.js';
import type { Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { formatLocation } from '../manifest/source-location.js';
import { diffFields } from './compare-fields.js';
import { sourceOf } from './draft-action.js';
import { normalizedSpecOf, type PlanState } from './plan-state.js';

/** The uniqueness-key value of a spec, prefixed by kind; undefined for kinds without one. */
export function uniqueKeyValue(kind: Kind, spec: Readonly<Record<string, unknown>>): string | undefined {
  if (kind.uniqueKey === undefined || kind.uniqueKey.length === 0) return undefined;
  return `${kind.name}:${canonicalJson(kind.uniqueKey.map((field) => spec[field] ?? null))}`;
}

/** Two entries that the service would refuse to hold at once (one rule per CIDR and IP policy). */
export function checkUniqueKeys(state: PlanState): void {
  const firstByKey = new Map<string, DesiredEntry>();
  for (const entry of state.desired.entries) {
    const kind = state.kindsByName.get(entry.kind);
    if (kind?.uniqueKey === undefined || kind.uniqueKey.length === 0) continue;
    const key = uniqueKeyValue(kind, normalizedSpecOf(state, kind, entry));
    if (key === undefined) continue;
    const first = firstByKey.get(key);
    if (first === undefined) {
      firstByKey.set(key, entry);
      continue;
    }
    state.errors.push({
      code: 'unique_key_conflict',
      message: `${entry.kind}.${entry.name}: has the same ${kind.uniqueKey.join(' and ')} as ${first.kind}.${first.name} (${formatLocation(first.location)}); the service holds only one`,
      source: entry.location,
    });
  }
}

/**
 * An entry (without `id`) whose unique key a live object already holds:
 * - held by an object of our owner that needs no replace to match: the entry
 *   takes that object over (a rename, or a move between names) and the plan
 *   renames it with a PATCH of its marker, so the rule never stops deciding;
 * - held by an object edgesync does not own: the service would refuse the
 *   create, so the plan fails now, naming the holder and how to adopt it.
 * An object an entry adopts by `id` is left to that entry.
 */
export function matchUniqueKeys(state: PlanState, skipped: ReadonlySet<DesiredEntry>): void {
  const adopted = new Set(
    state.desired.entries.flatMap((entry) => (entry.id === undefined ? [] : [entry.id])),
  );
  const holders = new Map<string, LiveObject>();
  const taken = new Set<string>();
  for (const object of state.liveById.values()) {
    const kind = state.kindsByName.get(object.kind);
    if (kind?.ownership !== 'metadata') continue;
    const key = uniqueKeyValue(kind, object.spec);
    if (key !== undefined) holders.set(key, object);
  }
  for (const entry of state.desired.entries) {
    const kind = state.kindsByName.get(entry.kind);
    if (entry.id !== undefined || skipped.has(entry) || kind?.uniqueKey === undefined) continue;
    const spec = normalizedSpecOf(state, kind, entry);
    const key = uniqueKeyValue(kind, spec);
    const holder = key === undefined ? undefined : holders.get(key);
    // Two entries with one key are reported by checkUniqueKeys; the first keeps the holder.
    if (holder === undefined || adopted.has(holder.id) || taken.has(holder.id)) continue;
    if (holder.marker?.owner !== state.options.owner) {
      reportKeyHeld(state, kind, entry, holder);
      continue;
    }
    const forcing = diffFields(
      kind.fields.filter((rule) => rule.onChange === 'replace'),
      spec,
      holder.spec,
      '',
    );
    if (forcing.length > 0) continue;
    state.keyMatched.set(entry, holder);
    taken.add(holder.id);
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
  });
}
