import type { Kind } from '../kinds/kind.js';
import { KIND_NAMES, type KindName } from '../kinds/kind-name.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { sourceOf } from './draft-action.js';
import type { PlanState } from './plan-state.js';

/** Live objects by ID, and those marked with `owner` by kind and name (newest first). */
export function indexLive(
  live: LiveState,
  owner: string,
  kindsByName: ReadonlyMap<KindName, Kind>,
): { liveById: Map<string, LiveObject>; managed: Map<KindName, Map<string, LiveObject[]>> } {
  const liveById = new Map<string, LiveObject>();
  const managed = new Map<KindName, Map<string, LiveObject[]>>();
  for (const kindName of KIND_NAMES) {
    for (const object of live.objects[kindName] ?? []) {
      liveById.set(object.id, object);
      if (object.marker?.owner !== owner) continue;
      if (kindsByName.get(kindName)?.ownership !== 'metadata') continue;
      const byName = managed.get(kindName) ?? new Map<string, LiveObject[]>();
      managed.set(kindName, byName);
      byName.set(object.marker.name, [...(byName.get(object.marker.name) ?? []), object]);
    }
  }
  // Several objects with one marker happen when an apply stopped between a
  // replacement's create and its delete: the newest is the one to keep.
  for (const byName of managed.values()) {
    for (const objects of byName.values()) objects.sort(newestFirst);
  }
  return { liveById, managed };
}

function newestFirst(a: LiveObject, b: LiveObject): number {
  const byTime = (b.createdAt ?? '').localeCompare(a.createdAt ?? '');
  return byTime !== 0 ? byTime : a.id.localeCompare(b.id);
}

/** Two entries adopting one ID: the later ones are reported and left out. */
export function checkAdoptions(state: PlanState): Set<DesiredEntry> {
  const skipped = new Set<DesiredEntry>();
  const firstById = new Map<string, DesiredEntry>();
  for (const entry of state.desired.entries) {
    if (entry.id === undefined || state.kindsByName.get(entry.kind)?.ownership !== 'metadata') continue;
    const first = firstById.get(entry.id);
    if (first === undefined) {
      firstById.set(entry.id, entry);
      continue;
    }
    skipped.add(entry);
    state.errors.push({
      code: 'adopt_duplicate',
      message: `${entry.kind}.${entry.name}: adopts ${entry.id}, which ${first.kind}.${first.name} already adopts`,
      source: entry.location,
    });
  }
  return skipped;
}

/**
 * The live object an entry stands for: adopted by `id`, or the managed object
 * of its name. `'error'` (already reported) when the `id` cannot be adopted.
 */
export function matchLive(
  state: PlanState,
  kind: Kind,
  entry: DesiredEntry,
): { object: LiveObject; adopting: boolean } | undefined | 'error' {
  if (entry.id === undefined) {
    const object = state.managed.get(kind.name)?.get(entry.name)?.[0];
    return object ? { object, adopting: false } : undefined;
  }
  const object = state.liveById.get(entry.id);
  if (object === undefined || object.kind !== kind.name) {
    state.errors.push({
      code: object ? 'adopt_wrong_kind' : 'adopt_not_found',
      message: object
        ? `${kind.name}.${entry.name}: id ${entry.id} is a ${object.kind} object, not one of ${kind.name}`
        : `${kind.name}.${entry.name}: id ${entry.id} does not exist in the account`,
      source: sourceOf(entry, '/id'),
    });
    return 'error';
  }
  if (object.marker?.owner === state.options.owner && object.marker.name !== entry.name) {
    state.errors.push({
      code: 'adopt_owned_by_other_name',
      message: `${kind.name}.${entry.name}: id ${entry.id} is already managed as ${kind.name}.${object.marker.name}`,
      source: sourceOf(entry, '/id'),
    });
    return 'error';
  }
  const ours = object.marker?.owner === state.options.owner && object.marker.name === entry.name;
  return { object, adopting: !ours };
}

/** Marks a live object as the one `entry` stands for. */
export function claim(state: PlanState, object: LiveObject, entry: DesiredEntry): void {
  state.claimed.add(object.id);
  state.entryByObjectId.set(object.id, entry);
  state.touched.add(object.id);
}
