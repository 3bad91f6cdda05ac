import type { HandlerEnv } from './handler.js';
import type { BaseRecord, CollectionName, CollectionRecords } from './records.js';
import { EMULATOR_ID_PREFIXES, type EmulatorIdKind, isWellFormedId } from './resource-id.js';
import { invalidField, notFound, ServiceError } from './service-error.js';
import { formatTimestamp } from './timestamp.js';

/**
 * The fields every record starts with. `fixedId` comes from a seed: it must
 * be well formed for the kind and unused.
 */
export function newBaseRecord(
  env: HandlerEnv,
  idKind: EmulatorIdKind,
  collection: CollectionName,
  fixedId: string | undefined,
  checked: Readonly<Record<string, unknown>>,
): BaseRecord {
  let id = env.ids.next(idKind);
  if (fixedId !== undefined) {
    if (!isWellFormedId(idKind, fixedId)) {
      throw invalidField(
        'id',
        `must be ${EMULATOR_ID_PREFIXES[idKind]} followed by 27 base62 characters (found "${fixedId}")`,
      );
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

/** The common fields of a response, absent when unset. */
export function renderBase(record: BaseRecord, uri: string): Record<string, unknown> {
  const body: Record<string, unknown> = { id: record.id, uri, created_at: record.created_at };
  if (record.description !== undefined) body.description = record.description;
  if (record.metadata !== undefined) body.metadata = record.metadata;
  return body;
}

/** The stored record with this ID, or 404 not_found naming it as `what` (e.g. "TCP edge"). */
export function findRecord<C extends CollectionName>(
  env: HandlerEnv,
  collection: C,
  id: string | undefined,
  what: string,
): CollectionRecords[C] {
  const record = id === undefined ? undefined : env.store.get(collection, id);
  if (!record) throw notFound(`${what} ${id}`);
  return record;
}
