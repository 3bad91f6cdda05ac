import type { ActionResult } from '../apply/apply-result.js';
import { buildInventory, type DaemonFacts } from '../inventory/build-inventory.js';
import type { InventoryObject } from '../inventory/inventory-object.js';
import { type InventoryIndex, indexInventory } from '../inventory/inventory-page.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { ResourceChange } from '../plan/plan.js';
import type { ReconcileRecord } from './reconcile/reconcile-record.js';

/** Which reconcile an inventory is as of: the run whose plan it is made from. */
export interface InventoryAsOf {
  /** The run's number (`runs` of the daemon's records: 1 for the first). */
  readonly run: number;
  /** RFC 3339: when that run finished. */
  readonly finishedAt: string;
}

/** What the daemon manages, as the current record knows it, held for paging. */
export interface RecordInventory extends InventoryIndex {
  /** null before the first plan (and after a load that left no desired state): no object is known. */
  readonly asOf: InventoryAsOf | null;
  /** The account was read whole for that plan. */
  readonly complete: boolean;
}

/**
 * Each record's inventory, made from the record alone the first time it is
 * asked for and kept while that record is the current one: a page of
 * `/inventory` or a view of the page is then a binary search and a walk of
 * at most a page, whatever the account's size (bench/daemon-inventory-bench.ts).
 * It holds one record's rows at a time; the record before is let go.
 */
export class RecordInventories {
  readonly #kinds: readonly Kind[];
  readonly #owner: string;
  #last: { readonly record: ReconcileRecord; readonly inventory: RecordInventory } | null = null;

  constructor(kinds: readonly Kind[], owner: string) {
    this.#kinds = kinds;
    this.#owner = owner;
  }

  of(record: ReconcileRecord): RecordInventory {
    if (this.#last?.record === record) return this.#last.inventory;
    const inventory = inventoryOfRecord(record, this.#kinds, this.#owner);
    this.#last = { record, inventory };
    return inventory;
  }
}

/**
 * Every object the owner manages as a record knows it: the last plan's
 * entries and owned objects, each in the state the run left it in
 * (`record.differences`: what it did not apply whole is pending, drift or
 * held; `record.skippedEntries`: skipped, with why), the fields of what
 * differs, and what its apply did (a create's new ID; an object it deleted
 * is no longer listed). Pure.
 */
export function inventoryOfRecord(
  record: ReconcileRecord,
  kinds: readonly Kind[],
  owner: string,
): RecordInventory {
  const kindNames = kinds.map((kind) => kind.name);
  const planned = record.plan;
  if (planned === null) return { ...indexInventory([], kindNames), asOf: null, complete: false };
  const left = new Map<string, 'pending' | 'drift' | 'held'>();
  for (const state of ['pending', 'drift', 'held'] as const) {
    for (const address of record.differences[state]) left.set(address, state);
  }
  const changes = planned.changes.filter((change) => left.has(change.address));
  const drifted = new Set(changes.filter((change) => left.get(change.address) === 'drift').map(entryKey));
  const skipped = new Map(
    record.skippedEntries.map((entry) => [entryKey(entry), { code: entry.reason, message: entry.message }]),
  );
  const facts: DaemonFacts = {
    skipped: (kind, name) => skipped.get(entryKey({ kind, name })),
    held: (change) => left.get(change.address) === 'held',
    unchangedSinceInSync: (kind, name) => drifted.has(entryKey({ kind, name })),
  };
  const rows = buildInventory({
    desired: planned.desired,
    live: planned.live,
    plan: { changes, errors: [] },
    owner,
    kinds,
    daemon: facts,
  });
  return {
    ...indexInventory(afterApply(rows, planned.appliedActions), kindNames),
    asOf: { run: planned.run, finishedAt: planned.finishedAt },
    complete: planned.live.complete,
  };
}

/** The rows as the apply left them: a create's ID on its row, an owned object it deleted (no entry holds it) gone. */
function afterApply(rows: InventoryObject[], done: readonly ActionResult[]): InventoryObject[] {
  if (done.length === 0) return rows;
  const created = new Map<string, string>();
  const deleted = new Set<string>();
  for (const action of done) {
    if (action.op === 'create' && action.id !== undefined) created.set(entryKey(action), action.id);
    if (action.op === 'delete') deleted.add(entryKey(action));
  }
  const out: InventoryObject[] = [];
  for (const row of rows) {
    const key = entryKey(row);
    if (row.source === null && row.state === 'in_sync' && deleted.has(key)) continue;
    const id = created.get(key);
    out.push(id === undefined ? row : { ...row, id });
  }
  return out;
}

function entryKey(entry: { readonly kind: KindName; readonly name: string } | ResourceChange): string {
  return `${entry.kind}\u0000${entry.name}`;
}
