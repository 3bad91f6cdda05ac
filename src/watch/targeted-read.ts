import PQueue from 'p-queue';
import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { isNotFound } from '../kinds/not-found-code.js';
import { kindByName } from '../kinds/registry.js';
import type { Plan } from '../plan/plan.js';
import type { LiveStateCache } from './live-state-cache.js';

/** Objects to read by ID, by kind. */
export type ReadTargets = ReadonlyMap<KindName, readonly string[]>;

/** Reads of one target at once; the client's budget bounds the rate. */
const CONCURRENCY = 8;

/**
 * What a draft plan (planned from the cache) would touch and must be read
 * first: every existing object it would write or delete, module-only edges
 * the manifests name that the cache has never seen, and objects a module
 * write left stale. Creates have no ID to read; a create that meets a taken
 * unique key is a surprise the write itself reports.
 */
export function readTargets(
  draft: Plan,
  namedModuleOnly: ReadonlyMap<KindName, readonly string[]>,
  cache: LiveStateCache,
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

/**
 * Reads each target by ID and puts the answer in the cache: the object as
 * it is now, or its removal on a 404. A metadata kind's object is read by
 * one GET of its own URI (the one its DELETE uses); a module-only edge by one
 * GET per module, as a full read does.
 */
export async function readTargetsInto(
  api: EdgeApi,
  cache: LiveStateCache,
  targets: ReadTargets,
  namedModuleOnly: ReadonlyMap<KindName, readonly string[]>,
  signal: AbortSignal,
): Promise<number> {
  const queue = new PQueue({ concurrency: CONCURRENCY });
  const reads: Promise<void>[] = [];
  let count = 0;
  for (const [kindName, ids] of targets) {
    const kind = kindByName(kindName);
    count += ids.length;
    if (kind.ownership === 'modules-only') {
      const named = new Set(namedModuleOnly.get(kindName) ?? []);
      reads.push(queue.add(() => readModuleEdges(api, cache, kind, ids, named, signal)));
      continue;
    }
    for (const id of ids) reads.push(queue.add(() => readObject(api, cache, kind, id, signal)));
  }
  try {
    await Promise.all(reads);
  } finally {
    queue.clear();
  }
  return count;
}

async function readObject(
  api: EdgeApi,
  cache: LiveStateCache,
  kind: Kind,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  signal.throwIfAborted();
  try {
    const response = await api.request(
      { method: 'GET', path: kind.deleteRequest(id).path },
      { signal, kind: kind.name },
    );
    cache.put(kind.fromApi(response.body));
  } catch (error) {
    if (!isNotFound(error)) throw error;
    cache.remove(kind.name, id);
  }
}

async function readModuleEdges(
  api: EdgeApi,
  cache: LiveStateCache,
  kind: Kind,
  ids: readonly string[],
  named: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<void> {
  signal.throwIfAborted();
  const found = await kind.readLive({ api, ids, signal });
  for (const object of found) cache.put(object);
  const foundIds = new Set(found.map((object) => object.id));
  for (const id of ids) if (!foundIds.has(id)) cache.remove(kind.name, id, named.has(id));
}
