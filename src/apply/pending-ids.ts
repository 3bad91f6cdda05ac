import { EdgesyncError } from '../errors.js';
import type { PendingId } from '../plan/plan.js';

export function isPendingId(value: unknown): value is PendingId {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$createdBy' && typeof (value as PendingId).$createdBy === 'string';
}

/**
 * Returns `body` with every PendingId replaced by the ID its create returned.
 * Throws `pending_id_unresolved` when a create it names has no ID: the
 * scheduler only starts an action once its dependencies are done, so that is
 * a plan whose `dependsOn` misses a create it refers to.
 */
export function resolvePendingIds(body: unknown, createdIds: ReadonlyMap<string, string>): unknown {
  if (isPendingId(body)) {
    const id = createdIds.get(body.$createdBy);
    if (id === undefined) {
      throw new EdgesyncError(
        'pending_id_unresolved',
        `request refers to the ID created by "${body.$createdBy}", which has not been created`,
      );
    }
    return id;
  }
  if (Array.isArray(body)) return body.map((item) => resolvePendingIds(item, createdIds));
  if (typeof body === 'object' && body !== null) {
    return Object.fromEntries(
      Object.entries(body).map(([key, value]) => [key, resolvePendingIds(value, createdIds)]),
    );
  }
  return body;
}

/** Keys of the creates whose IDs `body` waits for. */
export function pendingIdsIn(body: unknown): string[] {
  if (isPendingId(body)) return [body.$createdBy];
  if (Array.isArray(body)) return body.flatMap((item) => pendingIdsIn(item));
  if (typeof body === 'object' && body !== null)
    return Object.values(body).flatMap((value) => pendingIdsIn(value));
  return [];
}
