import { jsonChunks, lazyJsonArray } from '../json-chunks.js';
import { SYNC_STATE_WORDS } from '../sync-state.js';
import { visibleText } from '../visible-text.js';
import type { InventoryCounts, InventoryObject } from './inventory-object.js';

/** One object as JSON: snake_case like all of edgesync's JSON, every key present. */
export function inventoryObjectJson(object: InventoryObject): Record<string, unknown> {
  return {
    kind: object.kind,
    name: object.name,
    id: object.id,
    state: object.state,
    reason: object.reason,
    fields: object.fields,
    source: object.source,
  };
}

const HEADINGS = ['KIND', 'NAME', 'ID', 'STATE', 'REASON'] as const;

/**
 * The objects as a table, one line each, as `flux get` and `kubectl get`
 * print them: columns as wide as their longest cell, identifiers never cut
 * or wrapped (a terminal wraps the line, not the word), the reason last.
 * Every cell passes through visibleText: names come from manifests and the
 * reason from the service.
 */
export function* inventoryTextChunks(objects: readonly InventoryObject[]): Generator<string> {
  const cells = (object: InventoryObject): [string, string, string, string, string] => [
    object.kind,
    visibleText(object.name),
    object.id ?? '-',
    SYNC_STATE_WORDS[object.state],
    object.reason === null ? '' : visibleText(object.reason),
  ];
  const widths = HEADINGS.map((heading) => heading.length);
  for (const object of objects) {
    cells(object).forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, cell.length);
    });
  }
  const line = (row: readonly string[]): string =>
    `${row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd()}\n`;
  yield line(HEADINGS);
  for (const object of objects) yield line(cells(object));
}

/** `8 objects: 6 in sync, 1 pending, 1 skipped`: the counts that are not 0, in the vocabulary's order. */
export function inventorySummary(counts: InventoryCounts): string {
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const parts = (Object.keys(counts) as (keyof InventoryCounts)[])
    .filter((state) => counts[state] > 0)
    .map((state) => `${counts[state]} ${SYNC_STATE_WORDS[state]}`);
  return `${total} object${total === 1 ? '' : 's'}${parts.length === 0 ? '' : `: ${parts.join(', ')}`}`;
}

/** `get --format json`: who and from where, the counts, then every object, written one at a time. */
export function inventoryJsonChunks(
  header: Readonly<Record<string, unknown>>,
  counts: InventoryCounts,
  objects: readonly InventoryObject[],
): Iterable<string> {
  return jsonChunks({ ...header, counts, objects: lazyJsonArray(objects, inventoryObjectJson) }, 2);
}
