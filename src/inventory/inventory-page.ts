import type { KindName } from '../kinds/kind-name.js';
import { isSyncState, SYNC_STATES, type SyncState } from '../sync-state.js';
import type { InventoryCounts, InventoryObject } from './inventory-object.js';

/** The most objects one page of `/inventory` holds, and what it holds when no `limit` is asked. */
export const INVENTORY_PAGE_LIMIT = 1000;

/** The query parameters `/inventory` knows; any other is refused, so a misspelt filter never lists everything. */
export const INVENTORY_PARAMETERS = ['kind', 'state', 'after', 'limit'] as const;

/** Where a page starts: after this object, in the inventory's order. */
export interface InventoryCursor {
  readonly kind: KindName;
  readonly name: string;
}

/** One page asked of an inventory: which kinds and states, from where, how many. */
export interface InventoryQuery {
  /** null: every kind. */
  readonly kinds: ReadonlySet<KindName> | null;
  /** null: every state. */
  readonly states: ReadonlySet<SyncState> | null;
  /** null: from the first object. */
  readonly after: InventoryCursor | null;
  readonly limit: number;
}

export type InventoryQueryParse =
  | { readonly ok: true; readonly query: InventoryQuery }
  | { readonly ok: false; readonly parameter: string; readonly message: string };

/**
 * An inventory held for paging: its objects in their order (the registry's
 * kinds, then names by code unit), and the counts per kind, so that a page's
 * counts and its start cost no walk of the whole list.
 */
export interface InventoryIndex {
  readonly objects: readonly InventoryObject[];
  /** Each kind's place in the order. */
  readonly kindOrder: ReadonlyMap<KindName, number>;
  readonly countsByKind: ReadonlyMap<KindName, InventoryCounts>;
}

/** One page: the objects, the counts of all that match the filter, and the cursor of the next page (null at the end). */
export interface InventoryPage {
  readonly objects: readonly InventoryObject[];
  readonly counts: InventoryCounts;
  readonly next: string | null;
}

/** Indexes rows already in the inventory's order (`sortInventory`). */
export function indexInventory(
  objects: readonly InventoryObject[],
  kinds: readonly KindName[],
): InventoryIndex {
  const kindOrder = new Map(kinds.map((kind, index) => [kind, index]));
  const countsByKind = new Map<KindName, Record<SyncState, number>>();
  for (const kind of kinds) countsByKind.set(kind, emptyCounts());
  for (const object of objects) {
    const counts = countsByKind.get(object.kind);
    if (counts !== undefined) counts[object.state] += 1;
  }
  return { objects, kindOrder, countsByKind };
}

/** `ip_policy_rules/office-1`: the next page's `after`, readable and stable while objects come and go. */
export function inventoryCursor(object: Pick<InventoryObject, 'kind' | 'name'>): string {
  return `${object.kind}/${object.name}`;
}

/**
 * The query string of `/inventory`: `kind` and `state`, each a
 * comma-separated list (`state=drift,skipped`); `after`, the `next` of the
 * page before; `limit`, 1 to 1,000. Every bad value is refused with the
 * parameter's name, what was expected and what was found.
 */
export function parseInventoryQuery(
  params: URLSearchParams,
  kinds: readonly KindName[],
): InventoryQueryParse {
  const fail = (parameter: string, message: string): InventoryQueryParse => ({
    ok: false,
    parameter,
    message: `${parameter}: ${message}`,
  });
  for (const name of new Set(params.keys())) {
    if (!(INVENTORY_PARAMETERS as readonly string[]).includes(name))
      return fail(name, `not a parameter of /inventory (expected ${INVENTORY_PARAMETERS.join(', ')})`);
    if (params.getAll(name).length > 1)
      return fail(name, 'given more than once (give one comma-separated list)');
  }
  const kindList = listOf(params.get('kind'));
  if (kindList?.length === 0) return fail('kind', 'empty (leave it out to list every kind)');
  for (const kind of kindList ?? []) {
    if (!kinds.includes(kind))
      return fail('kind', `expected kinds among ${kinds.join(', ')} (found "${kind}")`);
  }
  const stateList = listOf(params.get('state'));
  if (stateList?.length === 0) return fail('state', 'empty (leave it out to list every state)');
  for (const state of stateList ?? []) {
    if (!isSyncState(state))
      return fail('state', `expected states among ${SYNC_STATES.join(', ')} (found "${state}")`);
  }
  const limitText = params.get('limit');
  const limit = limitText === null ? INVENTORY_PAGE_LIMIT : Number(limitText);
  if (
    !/^\d+$/.test(limitText ?? '1') ||
    !Number.isSafeInteger(limit) ||
    limit < 1 ||
    limit > INVENTORY_PAGE_LIMIT
  )
    return fail('limit', `expected a whole number from 1 to ${INVENTORY_PAGE_LIMIT} (found "${limitText}")`);
  const afterText = params.get('after');
  let after: InventoryCursor | null = null;
  if (afterText !== null) {
    const slash = afterText.indexOf('/');
    const kind = afterText.slice(0, slash);
    if (slash < 1 || !kinds.includes(kind))
      return fail('after', `expected KIND/NAME, the "next" of the page before (found "${afterText}")`);
    after = { kind, name: afterText.slice(slash + 1) };
  }
  return {
    ok: true,
    query: {
      kinds: kindList === null ? null : new Set(kindList),
      states: stateList === null ? null : new Set(stateList as SyncState[]),
      after,
      limit,
    },
  };
}

/**
 * The page `query` asks of `index`: a binary search to the object after the
 * cursor, then a walk that stops at `limit` matches (and one more, to know
 * whether a next page exists). A cursor names a place in the order, not an
 * index: objects added or gone between two pages shift nothing.
 */
export function inventoryPage(index: InventoryIndex, query: InventoryQuery): InventoryPage {
  const { objects } = index;
  const matches = (object: InventoryObject): boolean =>
    (query.kinds === null || query.kinds.has(object.kind)) &&
    (query.states === null || query.states.has(object.state));
  const page: InventoryObject[] = [];
  let next: string | null = null;
  for (let at = query.after === null ? 0 : firstAfter(index, query.after); at < objects.length; at += 1) {
    const object = objects[at] as InventoryObject;
    if (!matches(object)) continue;
    if (page.length === query.limit) {
      next = inventoryCursor(page[page.length - 1] as InventoryObject);
      break;
    }
    page.push(object);
  }
  return { objects: page, counts: filteredCounts(index, query), next };
}

function firstAfter(index: InventoryIndex, cursor: InventoryCursor): number {
  const order = (kind: KindName): number => index.kindOrder.get(kind) ?? -1;
  const cursorOrder = order(cursor.kind);
  let low = 0;
  let high = index.objects.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const object = index.objects[middle] as InventoryObject;
    const before =
      order(object.kind) < cursorOrder || (order(object.kind) === cursorOrder && object.name <= cursor.name);
    if (before) low = middle + 1;
    else high = middle;
  }
  return low;
}

function filteredCounts(index: InventoryIndex, query: InventoryQuery): InventoryCounts {
  const counts = emptyCounts();
  for (const [kind, byState] of index.countsByKind) {
    if (query.kinds !== null && !query.kinds.has(kind)) continue;
    for (const state of SYNC_STATES) {
      if (query.states === null || query.states.has(state)) counts[state] += byState[state];
    }
  }
  return counts;
}

function emptyCounts(): Record<SyncState, number> {
  return Object.fromEntries(SYNC_STATES.map((state) => [state, 0])) as Record<SyncState, number>;
}

function listOf(value: string | null): string[] | null {
  if (value === null) return null;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
