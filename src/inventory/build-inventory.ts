import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';
import type { DesiredEntry, DesiredState } from '../manifest/desired-state.js';
import type { Plan, PlanError, ResourceChange } from '../plan/plan.js';
import { type DifferenceFacts, differenceState, SYNC_STATES, type SyncState } from '../sync-state.js';
import type { InventoryCounts, InventoryObject } from './inventory-object.js';

/**
 * What only a daemon knows about a difference (it remembers what it
 * applied and holds deletes back); a one-shot `get` has none of it, and
 * every difference is then `pending` or `skipped`.
 */
export interface DaemonFacts {
  /** Why the daemon set this entry aside; undefined when it did not. */
  readonly skipped?: (
    kind: KindName,
    name: string,
  ) => { readonly code: string; readonly message: string } | undefined;
  /** The change is a delete (or waits for one) held until the manifests settle. */
  readonly held?: (change: ResourceChange) => boolean;
  /** The entry reads as it did when the account last matched it: a difference now is drift. */
  readonly unchangedSinceInSync?: (kind: KindName, name: string) => boolean;
}

export interface InventoryInputs {
  readonly desired: DesiredState;
  readonly live: LiveState;
  /** The plan's changes and errors; a daemon passes what its last run left undone. */
  readonly plan: Pick<Plan, 'changes' | 'errors'>;
  readonly owner: string;
  /** The registry's kinds, in its order: the inventory's order. */
  readonly kinds: readonly Kind[];
  readonly daemon?: DaemonFacts;
}

/**
 * Every object the owner manages, one row each, in the registry's kind
 * order and then by name: each manifest entry (with the ID its object has,
 * or null before a create) and each object the owner's marker claims that
 * no entry holds (to be deleted). A row's state follows the vocabulary's
 * rule (`differenceState`): skipped, then held, then drift when the daemon
 * knows the entry did not change, else pending; in sync when the plan has
 * nothing for it. Pure: the plan and the reads are done by the caller.
 */
export function buildInventory(inputs: InventoryInputs): InventoryObject[] {
  const { desired, live, plan, owner, kinds, daemon } = inputs;
  const changes = changesByEntry(plan.changes);
  const planSkips = entryErrors(plan.errors);
  const rows: InventoryObject[] = [];
  const entriesByKind = groupEntries(desired.entries);
  for (const kind of kinds) {
    const owned = ownedByName(live.objects[kind.name] ?? [], owner);
    const entries = entriesByKind.get(kind.name) ?? [];
    const named = new Set<string>();
    for (const entry of entries) {
      named.add(entry.name);
      const id = entry.id ?? owned.get(entry.name)?.id ?? null;
      rows.push(row(kind.name, entry.name, id, entry, changes, planSkips, daemon));
    }
    for (const [name, object] of owned) {
      if (!named.has(name)) rows.push(row(kind.name, name, object.id, undefined, changes, planSkips, daemon));
    }
  }
  return sortInventory(rows, kinds);
}

/** Rows in the registry's kind order, then by name (code unit order: stable and cheap, the cursor's order). */
export function sortInventory(rows: InventoryObject[], kinds: readonly Kind[]): InventoryObject[] {
  const order = new Map(kinds.map((kind, index) => [kind.name, index]));
  return rows.sort(
    (a, b) =>
      (order.get(a.kind) ?? 0) - (order.get(b.kind) ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

export function countInventory(rows: Iterable<InventoryObject>): InventoryCounts {
  const counts = Object.fromEntries(SYNC_STATES.map((state) => [state, 0])) as Record<SyncState, number>;
  for (const row of rows) counts[row.state] += 1;
  return counts;
}

function row(
  kind: KindName,
  name: string,
  id: string | null,
  entry: DesiredEntry | undefined,
  changes: ReadonlyMap<string, ResourceChange[]>,
  planSkips: ReadonlyMap<string, PlanError>,
  daemon: DaemonFacts | undefined,
): InventoryObject {
  const key = entryKey(kind, name);
  const source = entry === undefined ? null : `${entry.location.file}:${entry.location.line}`;
  const planSkip = planSkips.get(key);
  const skip =
    planSkip === undefined
      ? daemon?.skipped?.(kind, name)
      : { code: planSkip.code, message: planSkip.message };
  const own = changes.get(key) ?? [];
  if (skip === undefined && own.length === 0) {
    return { kind, name, id, state: 'in_sync', reason: null, fields: [], source };
  }
  const facts: DifferenceFacts = {
    ...(skip === undefined ? {} : { skippedBecause: skip.code }),
    ...(own.length > 0 && own.every((change) => daemon?.held?.(change) === true)
      ? { heldForSettle: true }
      : {}),
    ...(entry !== undefined && daemon?.unchangedSinceInSync?.(kind, name) === true
      ? { desiredUnchangedSinceInSync: true }
      : {}),
  };
  const state = differenceState(facts);
  // A create or a delete differs in every field: naming them all says nothing.
  const fields = [
    ...new Set(
      own
        .filter((change) => change.op !== 'create' && change.op !== 'delete')
        .flatMap((change) => change.changes.map((field) => field.path)),
    ),
  ];
  const reason = skip !== undefined ? `${skip.code}: ${skip.message}` : describeChanges(own);
  return {
    kind,
    name,
    id: id ?? own.find((change) => change.id !== undefined)?.id ?? null,
    state,
    reason,
    fields,
    source,
  };
}

/** `create`, `update`, `delete: owned by edgesync but no longer in the manifests`: the operations, and the reason of a lone one. */
function describeChanges(changes: readonly ResourceChange[]): string {
  const operations = [...new Set(changes.map((change) => change.op))];
  const only = changes.length === 1 ? changes[0] : undefined;
  return only === undefined ? operations.join(', ') : `${only.op}: ${only.reason}`;
}

function entryKey(kind: KindName, name: string): string {
  return `${kind}\u0000${name}`;
}

function changesByEntry(changes: readonly ResourceChange[]): Map<string, ResourceChange[]> {
  const byEntry = new Map<string, ResourceChange[]>();
  for (const change of changes) {
    const key = entryKey(change.kind, change.name);
    const list = byEntry.get(key);
    if (list === undefined) byEntry.set(key, [change]);
    else list.push(change);
  }
  return byEntry;
}

/** The plan's errors that stop one entry only: that entry is skipped, with the error as its reason. */
function entryErrors(errors: readonly PlanError[]): Map<string, PlanError> {
  const byEntry = new Map<string, PlanError>();
  for (const error of errors) {
    if (error.entry !== undefined && !byEntry.has(entryKey(error.entry.kind, error.entry.name))) {
      byEntry.set(entryKey(error.entry.kind, error.entry.name), error);
    }
  }
  return byEntry;
}

function groupEntries(entries: readonly DesiredEntry[]): Map<KindName, DesiredEntry[]> {
  const byKind = new Map<KindName, DesiredEntry[]>();
  for (const entry of entries) {
    const list = byKind.get(entry.kind);
    if (list === undefined) byKind.set(entry.kind, [entry]);
    else list.push(entry);
  }
  return byKind;
}

function ownedByName(objects: readonly LiveObject[], owner: string): Map<string, LiveObject> {
  const byName = new Map<string, LiveObject>();
  for (const object of objects) {
    if (object.marker?.owner === owner && !byName.has(object.marker.name))
      byName.set(object.marker.name, object);
  }
  return byName;
}
