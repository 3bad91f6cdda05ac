import type { EmulatedCollection } from './emulated-collection.js';
import { invalidField } from './field-rules.js';
import type { HandlerEnv } from './handler.js';
import type { BaseRecord } from './records.js';
import { checkIdShape } from './references.js';
import { isWellFormedId } from './resource-id.js';
import { notFound, ServiceError } from './service-error.js';
import { formatTimestamp } from './timestamp.js';

/**
 * The fields every record of `collection` starts with. `fixedId` comes from
 * a seed: it must be well formed for the collection and unused.
 */
export function newBaseRecord(
  env: HandlerEnv,
  collection: EmulatedCollection,
  fixedId: string | undefined,
  checked: Readonly<Record<string, unknown>>,
): BaseRecord {
  const prefix = collection.idPrefix;
  let id = env.ids.next(prefix);
  if (fixedId !== undefined) {
    if (!isWellFormedId(prefix, fixedId)) {
      throw invalidField('id', `must be ${prefix} followed by 27 base62 characters (found "${fixedId}")`);
    }
    if (env.store.seqOf(fixedId) !== undefined)
      throw new ServiceError(400, 'conflict', `id: ${fixedId} is already used`, 'id');
    id = fixedId;
  }
  const record: BaseRecord = { id, created_at: formatTimestamp(env.now()), seq: env.store.takeSeq() };
  if (typeof checked.description === 'string') record.description = checked.description;
  if (typeof checked.metadata === 'string') record.metadata = checked.metadata;
  if (env.store.has(collection, id))
    throw new ServiceError(400, 'conflict', `id: ${id} is already used`, 'id');
  return record;
}

/** PATCH semantics for the two common fields: only supplied fields change. */
export function patchDescriptionMetadata(
  record: BaseRecord,
  checked: Readonly<Record<string, unknown>>,
): void {
  if (typeof checked.description === 'string') record.description = checked.description;
  if (typeof checked.metadata === 'string') record.metadata = checked.metadata;
}

/**
 * The common fields of a response. Metadata is absent when unset; so is a
 * description never set, or "" under the variant `unset-description=empty`.
 */
export function renderBase(record: BaseRecord, uri: string, env: HandlerEnv): Record<string, unknown> {
  const body: Record<string, unknown> = { id: record.id, uri, created_at: record.created_at };
  if (record.description !== undefined) body.description = record.description;
  else if (env.variants['unset-description'] === 'empty') body.description = '';
  if (record.metadata !== undefined) body.metadata = record.metadata;
  return body;
}

/**
 * The stored record with this ID, or 404 naming it by the collection's
 * title (with the family's number for it where the collection has one).
 */
export function findRecord<R extends BaseRecord>(
  env: HandlerEnv,
  collection: EmulatedCollection<R>,
  id: string | undefined,
): R {
  // The family refuses an ID of the wrong kind or shape before it looks: 400, not 404.
  if (id !== undefined) checkIdShape(id, collection.idPrefix, undefined, collection.refusals?.malformedId);
  const record = id === undefined ? undefined : env.store.get(collection, id);
  if (record) return record;
  const missing = collection.refusals?.notFound;
  throw missing === undefined
    ? notFound(`${collection.title} ${id}`)
    : missing.refuse(`${collection.title} ${id} not found`);
}
