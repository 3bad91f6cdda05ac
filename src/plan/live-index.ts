import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { newestFirst } from '../kinds/live-object.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';

/**
 * The live objects marked with one name: the object itself when it is the
 * only one, as nearly every name is (a list of one per name was ~5.6 MB held
 * through planning 100,000 entries; issue 18); newest first otherwise.
 */
export type MarkedObjects = LiveObject | readonly LiveObject[];

export function isObjectList(marked: MarkedObjects): marked is readonly LiveObject[] {
  return Array.isArray(marked);
}

/** The objects marked with one name, as a list (none when `marked` is undefined). */
export function copiesOf(marked: MarkedObjects | undefined): readonly LiveObject[] {
  if (marked === undefined) return [];
  return isObjectList(marked) ? marked : [marked];
}

/** Calls `visit` with every object marked with any name of `byName`, without a list per name. */
export function forEachMarked(
  byName: ReadonlyMap<string, MarkedObjects>,
  visit: (object: LiveObject) => void,
): void {
  for (const marked of byName.values()) {
    if (!isObjectList(marked)) visit(marked);
    else for (let at = 0; at < marked.length; at += 1) visit(marked[at] as LiveObject);
  }
}

/** Live objects by ID, and those marked with `owner` by kind and name (newest first). */
export function indexLive(
  live: LiveState,
  owner: string,
  kindsByName: ReadonlyMap<KindName, Kind>,
): { liveById: Map<string, LiveObject>; managed: Map<KindName, Map<string, MarkedObjects>> } {
  const liveById = new Map<string, LiveObject>();
  const managed = new Map<KindName, Map<string, MarkedObjects>>();
  const lists: LiveObject[][] = [];
  for (const kindName of kindsByName.keys()) {
    for (const object of live.objects[kindName] ?? []) {
      liveById.set(object.id, object);
      if (object.marker?.owner !== owner) continue;
      if (kindsByName.get(kindName)?.ownership !== 'metadata') continue;
      const byName = managed.get(kindName) ?? new Map<string, MarkedObjects>();
      managed.set(kindName, byName);
      const marked = byName.get(object.marker.name);
      if (marked === undefined) byName.set(object.marker.name, object);
      else if (isObjectList(marked)) (marked as LiveObject[]).push(object);
      else {
        const copies = [marked, object];
        lists.push(copies);
        byName.set(object.marker.name, copies);
      }
    }
  }
  // Several objects with one marker happen when an apply stopped between a
  // replacement's create and its delete, or lost a create's answer: the one
  // kept is chosen by `pickCopy`; this order only makes plans deterministic.
  for (const copies of lists) copies.sort(newestFirst);
  return { liveById, managed };
}
