import { EdgesyncError } from '../errors.js';
import type { InventoryObject } from '../inventory/inventory-object.js';
import { INVENTORY_PAGE_LIMIT } from '../inventory/inventory-page.js';
import { readPeer } from '../peer/read-peer.js';
import { isSyncState } from '../sync-state.js';
import { visibleText } from '../visible-text.js';
import { parseDaemonUrl, shownUrl } from './status-read.js';

/** The most one page of `/inventory` may weigh: 1,000 objects with reasons of a few kilobytes each. */
export const MAX_INVENTORY_PAGE_BYTES = 16 * 1024 * 1024;
/** The most pages a walk reads: 10,000,000 objects, far past any account; a daemon that never ends its pages is cut off. */
export const MAX_INVENTORY_PAGES = 10_000;
/** Walks begun again when the daemon reconciled between two pages, before the objects are taken as they came. */
const WALK_ATTEMPTS = 3;

/** What a walk of a daemon's `/inventory` gives: every object, in the daemon's order, and as of which reconcile. */
export interface DaemonInventory {
  readonly owner: string;
  readonly complete: boolean;
  readonly manifestsValid: boolean | null;
  /** The reconciles the pages were made from: one, unless the daemon kept reconciling through every attempt. */
  readonly asOf: { readonly first: number; readonly last: number; readonly finishedAt: string } | null;
  readonly objects: readonly InventoryObject[];
}

/** One page as read and checked. */
interface CheckedPage {
  readonly owner: string;
  readonly complete: boolean;
  readonly manifestsValid: boolean | null;
  readonly asOf: { readonly reconcile: number; readonly finishedAt: string } | null;
  readonly objects: InventoryObject[];
  readonly next: string | null;
}

/** `http://host:9090` (or with a path prefix, or its `/status` as curl was given it) → its `/inventory`. */
export function inventoryUrl(daemonUrl: string): URL {
  const url = parseDaemonUrl(daemonUrl);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/(status|inventory)$/, '');
  url.pathname = `${path}/inventory`;
  url.search = '';
  url.hash = '';
  return url;
}

/**
 * Every page of a daemon's `/inventory` that the filter asks for, each read
 * through `readPeer` (bounded in size and time, ended by `signal`) and
 * checked key by key: the daemon is a peer, not a part of this process.
 * When the daemon reconciles between two pages the walk begins again, so
 * the objects come from one reconcile; after three tries they are taken as
 * they came and `asOf` says which reconciles they span. Throws
 * `network_error`, `unexpected_response` (not 200, not an inventory, a
 * cursor that does not move on), `response_too_large` or `aborted`, each
 * naming the URL without its credentials.
 */
export async function readDaemonInventory(
  url: URL,
  filter: { readonly kinds: readonly string[] | null; readonly states: readonly string[] | null },
  signal: AbortSignal,
  deadlineMs: number,
  /** The status token's `Authorization` (statusTokenHeader), when the daemon asks for one. */
  auth: Readonly<Record<string, string>> = {},
): Promise<DaemonInventory> {
  for (let attempt = 1; ; attempt += 1) {
    const pages: CheckedPage[] = [];
    let after: string | null = null;
    do {
      if (pages.length === MAX_INVENTORY_PAGES) {
        throw new EdgesyncError(
          'unexpected_response',
          `${shownUrl(url)}: more than ${MAX_INVENTORY_PAGES} pages of ${INVENTORY_PAGE_LIMIT}; not read further`,
        );
      }
      const page = await readPage(pageUrl(url, filter, after), signal, deadlineMs, auth);
      if (page.next !== null && page.next === after) {
        throw new EdgesyncError(
          'unexpected_response',
          `${shownUrl(url)}: the page after "${after}" says its next is "${after}" again; not an edgesync daemon's inventory`,
        );
      }
      pages.push(page);
      after = page.next;
    } while (after !== null);
    const runs = pages.map((page) => page.asOf?.reconcile ?? 0);
    const first = Math.min(...runs);
    const last = Math.max(...runs);
    if (first !== last && attempt < WALK_ATTEMPTS) continue;
    const lastPage = pages[pages.length - 1] as CheckedPage;
    return {
      owner: lastPage.owner,
      complete: pages.every((page) => page.complete),
      manifestsValid: lastPage.manifestsValid,
      asOf: lastPage.asOf === null ? null : { first, last, finishedAt: lastPage.asOf.finishedAt },
      objects: pages.flatMap((page) => page.objects),
    };
  }
}

function pageUrl(
  base: URL,
  filter: { readonly kinds: readonly string[] | null; readonly states: readonly string[] | null },
  after: string | null,
): URL {
  const url = new URL(base.href);
  if (filter.kinds !== null) url.searchParams.set('kind', filter.kinds.join(','));
  if (filter.states !== null) url.searchParams.set('state', filter.states.join(','));
  url.searchParams.set('limit', String(INVENTORY_PAGE_LIMIT));
  if (after !== null) url.searchParams.set('after', after);
  return url;
}

async function readPage(
  url: URL,
  signal: AbortSignal,
  deadlineMs: number,
  auth: Readonly<Record<string, string>>,
): Promise<CheckedPage> {
  const where = shownUrl(url);
  // A user and password in the URL go as Basic credentials (a daemon behind an auth proxy).
  const answer = await readPeer(
    {
      method: 'GET',
      url,
      headers: { accept: 'application/json', ...auth },
      deadlineMs,
      maxBodyBytes: MAX_INVENTORY_PAGE_BYTES,
    },
    signal,
  );
  switch (answer.type) {
    case 'too_large':
      throw new EdgesyncError(
        'response_too_large',
        `${where}: a page is over ${MAX_INVENTORY_PAGE_BYTES / 1024 / 1024} MiB, more than 1,000 objects ever are; not read`,
      );
    case 'failed':
      throw new EdgesyncError(
        'network_error',
        `${where}: could not read the daemon's inventory: ${answer.detail}`,
      );
    case 'aborted':
      throw new EdgesyncError('aborted', `${where}: interrupted`);
    case 'response':
      break;
  }
  if (answer.status !== 200) {
    const message = errorMessage(answer.text);
    throw new EdgesyncError(
      'unexpected_response',
      answer.status === 404
        ? `${where}: HTTP 404: this daemon serves no /inventory (an edgesync older than get --daemon-url?)`
        : `${where}: HTTP ${answer.status}${message === null ? ' (expected 200 with a page of the inventory)' : `: ${visibleText(message)}`}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch (error) {
    throw new EdgesyncError(
      'unexpected_response',
      `${where}: not JSON, so not an edgesync daemon's /inventory`,
      {
        cause: error,
      },
    );
  }
  return checkPage(body, where);
}

/** The message of a daemon's JSON error (`{"error": {"message"}}`), cut short; null from anything else. */
function errorMessage(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const error = record(body)?.error;
  const message = record(error)?.message;
  return typeof message === 'string' ? message.slice(0, 500) : null;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A page, key by key: each miss names the key and what was found. */
function checkPage(body: unknown, where: string): CheckedPage {
  const fail = (path: string, expected: string, found: unknown): never => {
    const shown = found === undefined ? 'nothing' : (JSON.stringify(found)?.slice(0, 60) ?? String(found));
    throw new EdgesyncError(
      'unexpected_response',
      `${where}: not an edgesync daemon's inventory: ${path}: expected ${expected} (found ${shown})`,
    );
  };
  const root = record(body) ?? fail('(the body)', 'an object', body);
  const string = (value: unknown, path: string): string =>
    typeof value === 'string' ? value : fail(path, 'a string', value);
  const stringOrNull = (value: unknown, path: string): string | null =>
    value === null ? null : string(value, path);
  const boolean = (value: unknown, path: string): boolean =>
    typeof value === 'boolean' ? value : fail(path, 'true or false', value);
  const asOf =
    root.as_of === null ? null : (record(root.as_of) ?? fail('as_of', 'an object or null', root.as_of));
  const reconcile = asOf?.reconcile;
  if (asOf !== null && (typeof reconcile !== 'number' || !Number.isSafeInteger(reconcile)))
    fail('as_of.reconcile', 'a whole number', reconcile);
  const list = Array.isArray(root.objects)
    ? (root.objects as unknown[])
    : fail('objects', 'a list', root.objects);
  if (list.length > INVENTORY_PAGE_LIMIT)
    fail('objects', `at most ${INVENTORY_PAGE_LIMIT} objects`, list.length);
  const objects = list.map((value, index): InventoryObject => {
    const path = `objects[${index}]`;
    const object = record(value) ?? fail(path, 'an object', value);
    const fields = Array.isArray(object.fields)
      ? (object.fields as unknown[]).map((field, at) => string(field, `${path}.fields[${at}]`))
      : fail(`${path}.fields`, 'a list', object.fields);
    return {
      kind: string(object.kind, `${path}.kind`),
      name: string(object.name, `${path}.name`),
      id: stringOrNull(object.id, `${path}.id`),
      state: isSyncState(object.state)
        ? object.state
        : fail(`${path}.state`, 'a state of the vocabulary', object.state),
      reason: stringOrNull(object.reason, `${path}.reason`),
      fields,
      source: stringOrNull(object.source, `${path}.source`),
    };
  });
  return {
    owner: string(root.owner, 'owner'),
    complete: boolean(root.complete, 'complete'),
    manifestsValid: root.manifests_valid === null ? null : boolean(root.manifests_valid, 'manifests_valid'),
    asOf:
      asOf === null
        ? null
        : { reconcile: reconcile as number, finishedAt: string(asOf.finished_at, 'as_of.finished_at') },
    objects,
    next: stringOrNull(root.next, 'next'),
  };
}
