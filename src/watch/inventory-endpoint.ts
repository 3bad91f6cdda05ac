import { inventoryPage, parseInventoryQuery } from '../inventory/inventory-page.js';
import { inventoryObjectJson } from '../inventory/render-inventory.js';
import type { RecordInventory } from './record-inventory.js';

/** What `/inventory` answers: its HTTP status and the JSON body. */
export interface InventoryAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

/** What a page is cut from: the daemon's identity and the current record's inventory. */
export interface InventorySource {
  readonly owner: string;
  /** The current record's inventory (RecordInventories: made once per record). */
  readonly inventory: () => RecordInventory;
  /** Whether the manifests the current record loaded were valid; null before the first load. */
  readonly manifestsValid: () => boolean | null;
}

/**
 * `GET /inventory?kind=&state=&after=&limit=`: one page of what the owner
 * manages, each object with its state as only the daemon knows it (drift
 * with its fields, held, skipped with why), as of the reconcile that
 * planned it (`as_of`). A bad parameter is a 400 that names it. The keys
 * of a page are those of `edgesync get --format json`, with `next` the
 * `after` of the next page (null on the last).
 */
export function inventoryAnswer(source: InventorySource, params: URLSearchParams): InventoryAnswer {
  const inventory = source.inventory();
  const parsed = parseInventoryQuery(params, [...inventory.kindOrder.keys()]);
  if (!parsed.ok) {
    return {
      status: 400,
      body: { error: { code: 'invalid_parameter', parameter: parsed.parameter, message: parsed.message } },
    };
  }
  const page = inventoryPage(inventory, parsed.query);
  return {
    status: 200,
    body: {
      owner: source.owner,
      source: 'daemon',
      as_of:
        inventory.asOf === null
          ? null
          : { reconcile: inventory.asOf.run, finished_at: inventory.asOf.finishedAt },
      manifests_valid: source.manifestsValid(),
      complete: inventory.complete,
      counts: page.counts,
      objects: page.objects.map(inventoryObjectJson),
      next: page.next,
    },
  };
}
