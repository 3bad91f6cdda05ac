import { WRONG_ID_PREFIX } from './api-errors.js';
import type { EmulatedCollection } from './emulated-collection.js';
import type { FamilyRule } from './family-rule.js';
import type { HandlerEnv } from './handler.js';
import type { BaseRecord } from './records.js';
import { isIdOfKind } from './resource-id.js';
import { ServiceError } from './service-error.js';
import type { StoreCollection } from './store.js';

export interface Ref {
  readonly id: string;
  readonly uri: string;
}

/** The Ref the service answers for a record of `target` (a collection with a `path`). */
export function refTo(env: HandlerEnv, target: EmulatedCollection, id: string): Ref {
  return { id, uri: `${env.baseUrl}${target.path}/${id}` };
}

/**
 * 400 `invalid_id` unless `id` is `prefix` followed by letters and digits:
 * without the prefix the family's 227; with it but malformed, `malformed`
 * (a resource's own number, where the family has one; 227 otherwise).
 */
export function checkIdShape(
  id: string,
  prefix: string,
  field?: string,
  malformed: FamilyRule = WRONG_ID_PREFIX,
): void {
  if (isIdOfKind(prefix, id)) return;
  const rule = id.startsWith(prefix) ? malformed : WRONG_ID_PREFIX;
  const message = `${id} is not an ID of the kind expected here: ${prefix} followed by letters and digits`;
  throw field === undefined ? rule.refuse(message) : rule.refuseField(field, message);
}

/** The family's numbers for a reference field: an ID of the target's prefix but no ID's shape, an ID it does not hold. */
export interface ReferenceRefusals {
  readonly malformed?: FamilyRule;
  readonly missing?: FamilyRule;
}

/**
 * 400 `invalid_id` unless `id` is an ID of the target's kind, then 400
 * `reference_not_found` unless it exists, with the family's numbers for the
 * field where it has them (`refusals`).
 */
export function checkReference(
  env: HandlerEnv,
  target: EmulatedCollection,
  id: string,
  field: string,
  refusals: ReferenceRefusals = {},
): void {
  checkIdShape(id, target.idPrefix, field, refusals.malformed);
  if (env.store.has(target, id)) return;
  const message = `${id} does not exist`;
  throw refusals.missing === undefined
    ? new ServiceError(400, 'reference_not_found', `${field}: ${message}`, field)
    : refusals.missing.refuseField(field, message);
}

export function checkReferences(
  env: HandlerEnv,
  target: EmulatedCollection,
  ids: readonly string[],
  field: string,
  refusals: ReferenceRefusals = {},
): void {
  for (const id of ids) checkReference(env, target, id, field, refusals);
}

/** The records that name `id` of `target` with a reference of this `onDelete`, newest first per collection. */
function namedBy(
  env: HandlerEnv,
  target: StoreCollection,
  id: string,
  onDelete: 'cascade' | 'refuse',
): { readonly collection: StoreCollection; readonly record: BaseRecord }[] {
  const found: { collection: StoreCollection; record: BaseRecord }[] = [];
  for (const collection of env.store.collections) {
    const references = (collection.references ?? []).filter(
      (reference) => reference.target === target.name && reference.onDelete === onDelete,
    );
    if (references.length === 0) continue;
    for (const record of env.store.list(collection)) {
      if (references.some((reference) => reference.ids(record).includes(id)))
        found.push({ collection, record });
    }
  }
  return found;
}

/**
 * Deletes a record as the service family does (StoreCollection.references):
 * while a record names it with `refuse` (a CA an edge's mutual TLS names), it
 * stays and the answer is 400 `conflict`; otherwise the records under it
 * (`parent`) and those naming it with `cascade` (an IP policy's rules) go
 * with it, and those naming it with `keep` keep a reference to nothing.
 */
export function deleteRecord(env: HandlerEnv, collection: StoreCollection, id: string): void {
  const users = namedBy(env, collection, id, 'refuse');
  if (users.length > 0) {
    const ids = users.map((user) => user.record.id);
    throw new ServiceError(400, 'conflict', `${id} is still referenced by ${ids.join(', ')}`, 'id');
  }
  for (const child of env.store.collections) {
    if (child.parent?.collection !== collection.name) continue;
    for (const record of [...env.store.childrenOf(child, id).oldestFirst()])
      deleteRecord(env, child, record.id);
  }
  for (const { collection: user, record } of namedBy(env, collection, id, 'cascade')) {
    deleteRecord(env, user, record.id);
  }
  env.store.delete(collection, id);
}
