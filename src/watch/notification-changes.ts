import { type ChangedField, MAX_CHANGES, type ObservedChanges } from '../notify/notification.js';
import type { FieldChange, ResourceChange } from '../plan/plan.js';

/** A value longer than this is named, not shown: a PEM, a list of routes. */
const MAX_SHOWN_CHARS = 80;

/**
 * The plan's changes at `addresses` as a drift event lists them: each
 * object's address and operation and the fields that differ, with the old
 * (the account's) and new (Git's) value when it is short and one line (a
 * rule's CIDR and action), never a secret's (named only). Only the first
 * MAX_CHANGES are made: an account with 100,000 drifted objects gets a
 * count, not a list.
 */
export function notificationChanges(
  planned: readonly ResourceChange[],
  addresses: readonly string[],
): ObservedChanges {
  const wanted = new Set(addresses);
  const changes = planned.filter((change) => wanted.has(change.address));
  return {
    list: changes.slice(0, MAX_CHANGES).map((change) => ({
      address: change.address,
      op: change.op,
      fields: change.changes.map(changedField),
    })),
    total: changes.length,
  };
}

function changedField(field: FieldChange): ChangedField {
  if (field.sensitive) return { path: field.path, sensitive: true };
  const before = shown(field.before);
  const after = shown(field.after);
  return {
    path: field.path,
    sensitive: false,
    ...(before === undefined ? {} : { before }),
    ...(after === undefined ? {} : { after }),
  };
}

function shown(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text !== undefined && text.length <= MAX_SHOWN_CHARS && !/[\r\n]/.test(text) ? text : undefined;
}
