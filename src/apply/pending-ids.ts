import type { ApiRequest } from '../api/edge-api.js';
import { EdgesyncError } from '../errors.js';
import { isPendingId, resolvePendingPath } from '../plan/pending-id.js';

/**
 * The request with every PendingId in its body, and every `{create:…}`
 * segment of its path, replaced by the ID that create returned. Throws
 * `pending_id_unresolved` when one has no ID yet: the scheduler starts an
 * action only once its dependencies are done, so that is a plan whose
 * `dependsOn` misses a create it refers to.
 */
export function resolvePendingIds(request: ApiRequest, createdIds: ReadonlyMap<string, string>): ApiRequest {
  const path = resolvePendingPath(request.path, createdIds);
  if (path === undefined) throw unresolved(request.path);
  if (request.body === undefined) return { ...request, path };
  return { ...request, path, body: resolveBody(request.body, createdIds) };
}

function resolveBody(body: unknown, createdIds: ReadonlyMap<string, string>): unknown {
  if (isPendingId(body)) {
    const id = createdIds.get(body.$createdBy);
    if (id === undefined) throw unresolved(body.$createdBy);
    return id;
  }
  if (Array.isArray(body)) return body.map((item) => resolveBody(item, createdIds));
  if (typeof body === 'object' && body !== null) {
    return Object.fromEntries(
      Object.entries(body).map(([key, value]) => [key, resolveBody(value, createdIds)]),
    );
  }
  return body;
}

function unresolved(reference: string): EdgesyncError {
  return new EdgesyncError(
    'pending_id_unresolved',
    `request refers to the ID created by "${reference}", which has not been created`,
  );
}
