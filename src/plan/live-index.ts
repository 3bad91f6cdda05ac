import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { newestFirst } from '../kinds/live-object.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';

/** Live objects by ID, and those marked with `owner` by kind and name (newest first). */
export function indexLive(
  live: LiveState,
  owner: string,
  kindsByName: ReadonlyMap<KindName, Kind>,
): { liveById: Map<string, LiveObject>; managed: Map<KindName, Map<string, LiveObject[]>> } {
  const liveById = new Map<string, LiveObject>();
  const managed = new Map<KindName, Map<string, LiveObject[]>>();
  for (const kindName of kindsByName.keys()) {
    for (const object of live.objects[kindName] ?? []) {
      liveById.set(object.id, object);
      if (object.marker?.owner !== owner) continue;
      if (kindsByName.get(kindName)?.ownership !== 'metadata') continue;
      const byName = managed.get(kindName) ?? new Map<string, LiveObject[]>();
      managed.set(kindName, byName);
      const copies = byName.get(object.marker.name);
      if (copies === undefined) byName.set(object.marker.name, [object]);
      else copies.push(object);
    }
  }
  // Several objects with one marker happen when an apply stopped between a
  // replacement's create and its delete, or lost a create's answer: the one
  // kept is chosen by `pickCopy`; this order only makes plans deterministic.
  for (const byName of managed.values()) {
    for (const objects of byName.values()) objects.sort(newestFirst);
  }
  return { liveById, managed };
}
