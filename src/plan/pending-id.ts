import type { ApiRequest } from '../api/edge-api.js';
import { EdgesyncError } from '../errors.js';

/**
 * Pending IDs, encoded and decoded in this one module. The planner stays pure
 * by never knowing an ID it has not seen: an action that needs the ID of an
 * object an earlier action creates carries a PendingId in its body (or a
 * pending segment in its path), and the executor substitutes the created ID
 * once that create is done.
 */

/** Stands in a request body for the ID the create action `$createdBy` returns. */
export interface PendingId {
  readonly $createdBy: string;
}

export function pendingId(createKey: string): PendingId {
  return { $createdBy: createKey };
}

export function isPendingId(value: unknown): value is PendingId {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  // The field first: asked of every object of every body planned, and Object.keys was a list each.
  if (typeof (value as PendingId).$createdBy !== 'string') return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$createdBy';
}

/** Keys of the create actions whose IDs `value` (a request body) waits for. */
export function pendingKeysIn(value: unknown): string[] {
  // One list filled in place, in document order: a list per level of every body was most of
  // the cost of this walk at 100,000 actions (docs/performance.md).
  const keys: string[] = [];
  collectPendingKeys(value, keys);
  return keys;
}

function collectPendingKeys(value: unknown, keys: string[]): void {
  if (typeof value !== 'object' || value === null) return;
  if (isPendingId(value)) keys.push(value.$createdBy);
  // Index and for…in loops: Object.values and an iterator per object were garbage of their own,
  // the plan running once and cold (docs/performance.md). Bodies are plain objects: for…in sees their own fields.
  else if (Array.isArray(value))
    for (let at = 0; at < value.length; at += 1) collectPendingKeys(value[at], keys);
  else for (const field in value) collectPendingKeys((value as Record<string, unknown>)[field], keys);
}

/**
 * A request path segment standing for the ID an earlier create returns, for
 * the follow-up update of a field the create cannot carry (FieldRule
 * `setAfterCreate`): `/reserved_addrs/{create:reserved_addrs.bastion}`. The
 * executor replaces it like a PendingId in a body.
 */
export function pendingPathSegment(createKey: string): string {
  return `{${createKey}}`;
}

/** Keys of the creates whose IDs a request path waits for. */
export function pendingKeysInPath(path: string): string[] {
  if (!path.includes('{')) return [];
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1] as string);
}

/** `path` with every pending segment replaced by the created ID; undefined when one is not known yet. */
export function resolvePendingPath(
  path: string,
  createdIds: ReadonlyMap<string, string>,
): string | undefined {
  let missing = false;
  const resolved = path.replace(/\{([^{}]+)\}/g, (_segment, key: string) => {
    const id = createdIds.get(key);
    if (id === undefined) missing = true;
    return id ?? '';
  });
  return missing ? undefined : resolved;
}

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
