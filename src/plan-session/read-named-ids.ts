import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import { KindError } from '../kinds/kind-error.js';
import type { KindName } from '../kinds/kind-name.js';
import { namesReadableIds, visitNamedIds } from '../kinds/named-id-references.js';
import { isNotFound } from '../kinds/not-found-code.js';
import type { DesiredState } from '../manifest/desired-state.js';

/** Reads at once: the client's budget paces them; this only keeps a long list from queueing all at once. */
const CONCURRENT_READS = 8;

/** One ID to read: where it is read from, and the kind of an entry that names it (for errors). */
export interface NamedIdRead {
  readonly path: string;
  readonly namedBy: KindName;
}

/**
 * The IDs the manifests name of resources edgesync does not list but can
 * read by ID (an IP policy, an endpoint configuration: FieldRule.names with
 * a path), each once, in the order first named.
 */
export function namedIdsToRead(desired: DesiredState, kinds: readonly Kind[]): Map<string, NamedIdRead> {
  const reads = new Map<string, NamedIdRead>();
  const byName = new Map(kinds.filter(namesReadableIds).map((kind) => [kind.name, kind]));
  if (byName.size === 0) return reads;
  for (const entry of desired.entries) {
    const kind = byName.get(entry.kind);
    if (kind === undefined) continue;
    visitNamedIds(kind, entry.spec, (id, named) => {
      if (!reads.has(id)) reads.set(id, { path: `${named.path}/${id}`, namedBy: kind.name });
    });
  }
  return reads;
}

/**
 * GETs each ID once and answers those the service answered 404 for. Any
 * other failure rejects with a `live_read_failed` KindError, as a failed
 * listing does: a plan is never made from a read that did not answer.
 */
export async function readNamedIds(
  api: EdgeApi,
  reads: ReadonlyMap<string, NamedIdRead>,
  signal?: AbortSignal,
): Promise<string[]> {
  const pending = [...reads];
  const missing: string[] = [];
  const worker = async (): Promise<void> => {
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
      const [id, read] = next;
      signal?.throwIfAborted();
      try {
        await api.request(
          { method: 'GET', path: read.path },
          signal === undefined ? { kind: read.namedBy } : { kind: read.namedBy, signal },
        );
      } catch (error) {
        if (isNotFound(error)) {
          missing.push(id);
          continue;
        }
        pending.length = 0;
        // Stopped by a signal, not failed: the read says what was interrupted.
        if (signal?.aborted) throw error;
        throw new KindError('live_read_failed', `reading ${id}, which ${read.namedBy} entries name, failed`, {
          kind: read.namedBy,
          id,
          cause: error,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_READS, reads.size) }, worker));
  return missing.sort();
}
