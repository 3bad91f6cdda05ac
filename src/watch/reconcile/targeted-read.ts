import type { KindName } from '../../kinds/kind-name.js';
import type { Plan } from '../../plan/plan.js';
import type { NamedModuleOnly } from '../live-cache-writer.js';
import type { LiveCacheView } from '../live-state-cache.js';

/**
 * What a draft plan (planned from the cache) would touch and must be read
 * first: every existing object it would write or delete, module-only edges
 * the manifests name that the cache has never seen, and objects a module
 * write left stale. Creates have no ID to read; a create that meets a taken
 * unique key is a surprise the write itself reports.
 */
export function targetsToRead(
  draft: Plan,
  namedModuleOnly: NamedModuleOnly,
  cache: LiveCacheView,
): Map<KindName, string[]> {
  const targets = new Map<KindName, Set<string>>();
  const add = (kind: KindName, id: string): void => {
    let ids = targets.get(kind);
    if (ids === undefined) {
      ids = new Set();
      targets.set(kind, ids);
    }
    ids.add(id);
  };
  for (const change of draft.changes) if (change.id !== undefined) add(change.kind, change.id);
  for (const [kind, ids] of namedModuleOnly) for (const id of ids) if (!cache.knows(kind, id)) add(kind, id);
  for (const [kind, ids] of cache.staleIds()) for (const id of ids) add(kind, id);
  return new Map([...targets].map(([kind, ids]) => [kind, [...ids]]));
}
