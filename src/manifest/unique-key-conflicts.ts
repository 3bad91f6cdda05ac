import type { Kind } from '../kinds/kind.js';
import type { DesiredEntry } from './desired-state.js';
import { ManifestError } from './manifest-error.js';

/** An entry and its unique key's values, normalized as the planner compares them. */
interface Held {
  readonly entry: DesiredEntry;
  readonly values: Readonly<Record<string, unknown>>;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Entries that hold the same unique key (Kind.uniqueKey: the service's one
 * rule per CIDR and IP policy) as an entry before them, in load order: an
 * error at the later one's first key field, naming the first. Run once the
 * entries of every file are built, from their specs and field places, so
 * that nothing per entry outlives the check (at 100,000 rules, a key and a
 * place held per entry for the checks across files cost more than the
 * check itself). Values are normalized (`2001:DB8::/32` is `2001:db8::/32`),
 * and bucketed by the first field, nearly one entry a bucket.
 */
export function uniqueKeyConflicts(
  entries: readonly DesiredEntry[],
  kindByName: ReadonlyMap<string, Kind>,
): ManifestError[] {
  const errors: ManifestError[] = [];
  const buckets = new Map<Kind, Map<unknown, Held[]>>();
  for (const entry of entries) {
    const kind = kindByName.get(entry.kind);
    const fields = kind?.uniqueKey;
    if (kind === undefined || fields === undefined || fields.length === 0) continue;
    const own: Record<string, unknown> = {};
    for (const field of fields) own[field] = entry.spec[field];
    const values = kind.normalizeDesired(own);
    let byFirst = buckets.get(kind);
    if (byFirst === undefined) {
      byFirst = new Map();
      buckets.set(kind, byFirst);
    }
    const bucketKey = values[fields[0] as string] ?? null;
    const bucket = byFirst.get(bucketKey);
    const first = bucket?.find((held) =>
      fields.every((field) => sameValue(held.values[field], values[field])),
    );
    if (first === undefined) {
      if (bucket === undefined) byFirst.set(bucketKey, [{ entry, values }]);
      else bucket.push({ entry, values });
      continue;
    }
    const field = fields[0] as string;
    const named = fields.join(' and ');
    const at = first.entry.fieldLocations[`/${field}`] ?? first.entry.location;
    errors.push(
      new ManifestError(
        'unique_key_conflict',
        entry.fieldLocations[`/${field}`] ?? entry.location,
        `${entry.kind}.${entry.name}.${field}`,
        `has the same ${named} as ${first.entry.kind}.${first.entry.name} at ${at.file}:${at.line}:${at.column}; the service holds one object per ${named}`,
      ),
    );
  }
  return errors;
}
