import type { Kind } from '../kinds/kind.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';
import { KINDS } from '../kinds/registry.js';
import type { DesiredEntry, DesiredState } from '../manifest/desired-state.js';
import { indexMarkedForPlan, isObjectList } from '../plan/live-index.js';

/**
 * Makes each live object marked with `owner` and the name of an entry of
 * its kind hold that entry's strings wherever the two are equal: the
 * marker's name and the spec's top-level strings (a rule's description and
 * CIDR). JSON.parse gave every live object its own copies, held through the
 * whole plan beside the manifest's: about 100 bytes a rule, 10 MB at
 * 100,000 (issue 18). No value changes (the strings are equal), so this
 * writes into the objects just read, before anything else holds them.
 * The objects are found in the planner's own index of marked objects, made
 * here and handed over to the plan of `live` that follows (`kinds` and
 * `owner` as that plan's).
 */
export function shareDesiredStrings(
  desired: DesiredState,
  live: LiveState,
  owner: string,
  kinds: readonly Kind[] = KINDS,
): void {
  const marked = indexMarkedForPlan(live, owner, kinds);
  for (const entry of desired.entries) {
    const objects = marked.get(entry.kind)?.get(entry.name);
    if (objects === undefined) continue;
    if (!isObjectList(objects)) shareStrings(objects, entry);
    else for (const object of objects) shareStrings(object, entry);
  }
}

function shareStrings(object: LiveObject, entry: DesiredEntry): void {
  (object.marker as { name: string }).name = entry.name;
  const spec = object.spec as Record<string, unknown>;
  for (const key of Object.keys(spec)) {
    const value = spec[key];
    if (typeof value === 'string' && value === entry.spec[key]) spec[key] = entry.spec[key];
  }
}
