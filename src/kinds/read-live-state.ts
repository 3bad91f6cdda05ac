import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from './kind.js';
import { KindError } from './kind-error.js';
import type { KindName } from './kind-name.js';
import type { LiveObject, LiveState } from './live-state.js';

export interface ReadLiveStateOptions {
  /**
   * IDs the manifests name, by kind. Module-only kinds (tcp_edges,
   * tls_edges) read exactly these; listed kinds read everything regardless.
   * @default {}
   */
  readonly idsByKind?: Readonly<Partial<Record<KindName, readonly string[]>>>;
  readonly signal?: AbortSignal;
  /**
   * Milliseconds clock for `stats.durationMs`.
   * @default performance.now
   */
  readonly now?: () => number;
  /** The registry in use: the kinds to read, in the order `objects` lists them. */
  readonly kinds: readonly Kind[];
  /**
   * The object to hold for each one a listed kind reads: the daemon's
   * background read passes the instance its cache already holds when the two
   * are the same (same fingerprint), so the listing of an unchanged account
   * holds no second copy of it.
   * @default the object read
   */
  readonly keep?: (object: LiveObject) => LiveObject;
}

/**
 * A complete snapshot of the account: every listed kind read to its last
 * page, every named module-only edge's modules read. All kinds are read at
 * once (the client's budget bounds the rate). Any failure rejects with a
 * `live_read_failed` KindError naming the kind, and stops the other reads:
 * a partial snapshot is never returned, so nothing is pruned from one.
 */
export async function readLiveState(api: EdgeApi, options: ReadLiveStateOptions): Promise<LiveState> {
  const { kinds } = options;
  const now = options.now ?? (() => performance.now());
  const idsByKind = options.idsByKind ?? {};
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
  const before = api.stats();
  const startedAt = now();

  const readKind = async (kind: Kind): Promise<readonly LiveObject[]> => {
    try {
      const ids = idsByKind[kind.name] ?? [];
      return await kind.readLive(
        options.keep === undefined ? { api, ids, signal } : { api, ids, signal, keep: options.keep },
      );
    } catch (error) {
      stop.abort();
      throw new KindError('live_read_failed', `reading the live ${kind.name} failed: ${messageOf(error)}`, {
        kind: kind.name,
        cause: error,
      });
    }
  };

  let results: (readonly LiveObject[])[];
  try {
    results = await Promise.all(kinds.map(readKind));
  } finally {
    stop.abort();
  }

  const objects: Record<KindName, readonly LiveObject[]> = {};
  const missingIds: string[] = [];
  kinds.forEach((kind, index) => {
    const read = results[index] ?? [];
    objects[kind.name] = read;
    if (kind.ownership !== 'modules-only') return;
    const found = new Set(read.map((object) => object.id));
    for (const id of new Set(idsByKind[kind.name] ?? [])) if (!found.has(id)) missingIds.push(id);
  });
  const after = api.stats();
  return {
    objects,
    complete: true,
    missingIds,
    stats: {
      requests: after.requests - before.requests,
      pages: after.pages - before.pages,
      durationMs: Math.max(0, now() - startedAt),
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
