import { canonicalJson } from '../kinds/canonical-json.js';
import type { Kind } from '../kinds/kind.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import { formatLocation } from '../manifest/source-location.js';
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
