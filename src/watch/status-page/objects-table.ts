import type { InventoryObject } from '../../inventory/inventory-object.js';
import { parseInventoryQuery } from '../../inventory/inventory-page.js';
import { SYNC_STATE_MEANINGS, SYNC_STATE_WORDS, SYNC_STATES, type SyncState } from '../../sync-state.js';
import type { RecordInventory } from '../record-inventory.js';
import { htmlText, identifierHtml } from './html-text.js';

/** The most rows the page's table shows; `/inventory` pages through the rest. */
export const OBJECT_ROWS_SHOWN = 500;

/** Problems first: what cannot be applied, then what moved behind edgesync's back, then what waits, then what is in sync. */
const STATE_ORDER: readonly SyncState[] = ['skipped', 'drift', 'held', 'pending', 'in_sync'];

const STATE_CLASS: Readonly<Record<SyncState, string>> = {
  skipped: 'bad',
  drift: 'warn',
  held: 'warn',
  pending: 'warn',
  in_sync: 'ok',
};

/**
 * The table of managed objects: kind, name, ID, state and why, problems
 * first, at most `OBJECT_ROWS_SHOWN` rows, filtered by the page's query
 * string (`?state=drift,skipped&kind=ip_policy_rules`, the parameters of
 * `/inventory`), with links the server writes for each state and kind: no
 * script, no form (the policy allows neither). Made in one walk per state
 * of at most the whole inventory, whatever the filter.
 */
export function objectsSection(inventory: RecordInventory, query: URLSearchParams): string {
  const kinds = [...inventory.kindOrder.keys()];
  const filterParams = new URLSearchParams(
    [...query].filter(([name]) => name === 'kind' || name === 'state'),
  );
  const parsed = parseInventoryQuery(filterParams, kinds);
  const filter = parsed.ok ? parsed.query : { kinds: null, states: null };
  const asOf =
    inventory.asOf === null
      ? '<span class="muted">no plan yet</span>'
      : `<span class="muted">as of reconcile ${inventory.asOf.run} (${htmlText(inventory.asOf.finishedAt)})</span>`;
  const counts = SYNC_STATES.map((state) => [state, countOf(inventory, filter.kinds, state)] as const);
  const total = counts.reduce((sum, [, count]) => sum + count, 0);
  const shown: InventoryObject[] = [];
  let matching = 0;
  for (const state of STATE_ORDER) {
    if (filter.states !== null && !filter.states.has(state)) continue;
    matching += counts.find(([counted]) => counted === state)?.[1] ?? 0;
    for (const object of inventory.objects) {
      if (shown.length === OBJECT_ROWS_SHOWN) break;
      if (object.state === state && (filter.kinds === null || filter.kinds.has(object.kind)))
        shown.push(object);
    }
  }
  const link = (params: Record<string, string | null>, text: string, current: boolean): string => {
    const next = new URLSearchParams(filterParams);
    for (const [name, value] of Object.entries(params)) {
      if (value === null) next.delete(name);
      else next.set(name, value);
    }
    const href = next.size === 0 ? './' : `?${next.toString()}`;
    return current
      ? `<strong>${htmlText(text)}</strong>`
      : `<a href="${htmlText(href)}">${htmlText(text)}</a>`;
  };
  const stateParam = filterParams.get('state');
  const kindParam = filterParams.get('kind');
  const stateLinks = [
    link({ state: null }, `all (${total})`, stateParam === null),
    link({ state: 'skipped,drift,held,pending' }, 'not in sync', stateParam === 'skipped,drift,held,pending'),
    ...STATE_ORDER.map((state) =>
      link(
        { state },
        `${SYNC_STATE_WORDS[state]} (${counts.find(([counted]) => counted === state)?.[1] ?? 0})`,
        stateParam === state,
      ),
    ),
  ];
  const kindLinks = [
    link({ kind: null }, 'every kind', kindParam === null),
    ...kinds
      .filter((kind) =>
        inventory.countsByKind.get(kind) ? sum(inventory.countsByKind.get(kind)) > 0 : false,
      )
      .map((kind) => link({ kind }, kind, kindParam === kind)),
  ];
  const refused = parsed.ok ? '' : `<p class="bad">${htmlText(`filter ignored: ${parsed.message}`)}</p>`;
  const present = STATE_ORDER.filter(
    (state) => state !== 'in_sync' && shown.some((object) => object.state === state),
  );
  const legend =
    present.length === 0
      ? ''
      : `<ul class="legend-states">${present.map((state) => `<li>${badge(STATE_CLASS[state], SYNC_STATE_WORDS[state])} ${htmlText(SYNC_STATE_MEANINGS[state])}</li>`).join('')}</ul>`;
  const rows = shown
    .map(
      (object) =>
        `<tr><td><code class="id">${identifierHtml(object.kind)}</code></td><td><code class="id">${identifierHtml(object.name)}</code></td><td><code class="id">${object.id === null ? '<span class="muted">-</span>' : identifierHtml(object.id)}</code></td><td>${badge(STATE_CLASS[object.state], SYNC_STATE_WORDS[object.state])}</td><td>${object.reason === null ? '' : htmlText(object.reason)}${object.fields.length > 0 && object.state !== 'skipped' ? ` <span class="muted">fields:</span> ${object.fields.map((field) => `<code class="id">${identifierHtml(field)}</code>`).join(', ')}` : ''}</td></tr>`,
    )
    .join('');
  const inventoryHref = `inventory${filterParams.size === 0 ? '' : `?${filterParams.toString()}`}`;
  const rest =
    matching > shown.length
      ? `<p class="muted">${shown.length} of ${matching} shown; every one, page by page: <a href="${htmlText(inventoryHref)}">/${htmlText(inventoryHref)}</a> (JSON)</p>`
      : `<p class="muted">${matching} shown; as JSON: <a href="${htmlText(inventoryHref)}">/${htmlText(inventoryHref)}</a></p>`;
  const table =
    shown.length === 0
      ? `<p class="muted">No object${filterParams.size === 0 ? '' : ' matches the filter'}.</p>`
      : `<div class="scroll"><table class="objects"><tr><th>kind</th><th>name</th><th>id</th><th>state</th><th>reason</th></tr>${rows}</table></div>`;
  return `<h2 id="objects">Objects ${asOf}</h2><p class="filters">${stateLinks.join(' · ')}<br>${kindLinks.join(' · ')}</p>${refused}${legend}${table}${rest}`;
}

function countOf(inventory: RecordInventory, kinds: ReadonlySet<string> | null, state: SyncState): number {
  let count = 0;
  for (const [kind, counts] of inventory.countsByKind) {
    if (kinds === null || kinds.has(kind)) count += counts[state];
  }
  return count;
}

function sum(counts: Readonly<Record<SyncState, number>> | undefined): number {
  return counts === undefined ? 0 : SYNC_STATES.reduce((total, state) => total + counts[state], 0);
}

function badge(cls: string, text: string): string {
  return `<span class="badge ${cls}">${htmlText(text)}</span>`;
}
