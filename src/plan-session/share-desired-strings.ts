import { inlineRecord } from '../inline-record.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveObject } from '../kinds/live-state.js';
import { type DesiredEntry, type DesiredState, entriesByKindAndName } from '../manifest/desired-state.js';

/**
 * What the live read holds for each object it lists (ReadLiveStateOptions's
 * `keep`): an object marked with `owner` and the name of an entry of its
 * kind is held with that entry's strings wherever the two are equal, the
 * marker's name and the spec's top-level strings (a rule's description and
 * CIDR); any other object as it was read. JSON.parse gave every live object
 * its own copies, held through the whole plan beside the manifest's: about
 * 100 bytes a rule, 10 MB at 100,000 (docs/performance.md). The object read
 * is not changed: the one held is a copy with equal values, made as the
 * listing reads it, before anything else holds either.
 */
export function withDesiredStrings(desired: DesiredState, owner: string): (object: LiveObject) => LiveObject {
  // Made at the first object marked with our owner: an account of none (a first apply) needs no map.
  let entries: ReadonlyMap<KindName, ReadonlyMap<string, DesiredEntry>> | undefined;
  return (object) => {
    if (object.marker?.owner !== owner) return object;
    entries ??= entriesByKindAndName(desired.entries);
    const entry = entries.get(object.kind)?.get(object.marker.name);
    return entry === undefined ? object : sharingStrings(object, entry);
  };
}

function sharingStrings(object: LiveObject, entry: DesiredEntry): LiveObject {
  const spec = object.spec;
  const keys = Object.keys(spec);
  const values = keys.map((key) => {
    const value = spec[key];
    return typeof value === 'string' && value === entry.spec[key] ? entry.spec[key] : value;
  });
  const marker = { ...(object.marker as NonNullable<LiveObject['marker']>), name: entry.name };
  return { ...object, marker, spec: inlineRecord(keys, values) };
}
