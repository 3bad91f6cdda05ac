import { setImmediate } from 'node:timers/promises';
import { isRecord } from '../json-value.js';
import type { ApiResponse, ListPage } from './edge-api.js';
import { PaginationError } from './pagination-error.js';
import { RequestAbortedError } from './request-aborted-error.js';

/** What a listing needs of the client. */
export interface PageSource {
  /** The API's origin and base path (`''` or `/v2`): every page must be under them. */
  readonly origin: string;
  readonly basePath: string;
  /** One GET of a page, inside the budget and retry policy. */
  get(url: URL): Promise<ApiResponse<unknown>>;
  /** Removes secrets from URIs that go into errors or pages. */
  redact(text: string): string;
  /** Called for each page read. */
  onPage(): void;
  /** Ask for the next page before handing over this one (PaginateOptions.readAhead). @default false */
  readonly readAhead?: boolean;
  /** Objects one list may hold before its read fails (`too_many_objects`). @default DEFAULT_MAX_LIST_OBJECTS */
  readonly maxObjects?: number;
}

const PAGE_SIZE = '100';

/**
 * The default bound on the objects of one list: ten times the largest
 * account the docs describe (100,000 rules, docs/performance.md), so it
 * never refuses a real account, while a list that never ends fails after
 * 10,000 pages instead of reading forever. `--max-list-objects` raises it.
 */
export const DEFAULT_MAX_LIST_OBJECTS = 1_000_000;

/**
 * Pages in a row without an item that still point to a next page. The
 * service pages by the last ID read (newest first), so such a page makes no
 * progress: a few in a row are a loop under fresh URIs.
 */
export const MAX_EMPTY_PAGES_IN_A_ROW = 10;

/** How much of an ID from the service a message quotes. */
const QUOTED_ID_LENGTH = 80;

/**
 * Every page of a list, asking for `limit=100` and following `next_page_uri`
 * until null. Throws a PaginationError, never ends early, when a page fails,
 * is not a list envelope, points off the API or back to a page already
 * read, lists an ID already listed (a repeated page is named as such),
 * takes the list past `maxObjects`, or is one of too many empty pages in a
 * row: a partial list would look like an account with fewer objects, and a
 * repeated one like an object held twice (the planner deletes the copy).
 */
export async function* listPages<T>(
  first: URL,
  path: string,
  listKey: string,
  source: PageSource,
): AsyncGenerator<ListPage<T>> {
  let url: URL | undefined = first;
  if (!url.searchParams.has('limit')) url.searchParams.set('limit', PAGE_SIZE);
  const seen = new Set<string>();
  const ids = new ListedIds();
  const maxObjects = source.maxObjects ?? DEFAULT_MAX_LIST_OBJECTS;
  let objects = 0;
  let emptyInARow = 0;
  let pagesRead = 0;
  const fail = (failure: PaginationError['failure'], pageUri: string, detail: string, cause?: unknown) =>
    new PaginationError({ path, failure, pageUri, pagesRead, detail }, cause === undefined ? {} : { cause });
  /** The next page's GET when it was asked for ahead. */
  let inFlight: Promise<ApiResponse<unknown>> | undefined;
  while (url) {
    const pageUri = source.redact(url.href);
    seen.add(url.href);
    let response: ApiResponse<unknown>;
    try {
      response = await (inFlight ?? requestPage(source, url));
      inFlight = undefined;
    } catch (error) {
      if (error instanceof RequestAbortedError) throw error;
      throw fail('page_failed', pageUri, error instanceof Error ? error.message : String(error), error);
    }
    const envelope = response.body;
    const items = isRecord(envelope) ? envelope[listKey] : undefined;
    if (!isRecord(envelope) || !Array.isArray(items)) {
      throw fail('bad_envelope', pageUri, `expected an object with a "${listKey}" list`);
    }
    const next = envelope.next_page_uri;
    if (next !== null && next !== undefined && typeof next !== 'string') {
      throw fail('bad_envelope', pageUri, 'next_page_uri is neither a string nor null');
    }
    let nextUrl: URL | undefined;
    if (typeof next === 'string' && next !== '') {
      nextUrl = resolveNextPage(next, url);
      if (!nextUrl || !isUnderBase(nextUrl, source.origin, source.basePath)) {
        throw fail(
          'off_origin',
          source.redact(next),
          `next_page_uri is not under ${source.origin}${source.basePath}/`,
        );
      }
      if (seen.has(nextUrl.href)) {
        throw fail(
          'repeated_page',
          source.redact(nextUrl.href),
          'next_page_uri points to a page already read',
        );
      }
    }
    const repeated = ids.take(items, pagesRead + 1);
    if (repeated !== undefined) {
      const page = pagesRead + 1;
      const id = quoteId(source.redact(repeated.id));
      const detail =
        repeated.wholePage !== undefined
          ? `page ${page} lists the same ${items.length} object(s) as page ${repeated.wholePage} (the first: ${id})`
          : repeated.firstPage === page
            ? `${id} is listed twice on page ${page}`
            : `${id} is listed on page ${repeated.firstPage} and again on page ${page}`;
      throw fail(repeated.wholePage === undefined ? 'repeated_id' : 'repeated_page', pageUri, detail);
    }
    objects += items.length;
    if (objects > maxObjects) {
      throw fail(
        'too_many_objects',
        pageUri,
        `more than ${maxObjects.toLocaleString('en-US')} objects, the bound on one list (--max-list-objects; raise it if the account holds more)`,
      );
    }
    emptyInARow = items.length === 0 && nextUrl !== undefined ? emptyInARow + 1 : 0;
    if (emptyInARow >= MAX_EMPTY_PAGES_IN_A_ROW) {
      throw fail(
        'empty_pages',
        pageUri,
        `${emptyInARow} pages in a row without an object still point to a next page`,
      );
    }
    // Asked for before this page is handed over: the service prepares it while the caller works
    // through this one (docs/performance.md).
    if (nextUrl && source.readAhead === true) {
      inFlight = requestPage(source, nextUrl);
      // The request is written to the socket on a later tick, which would come only after the
      // caller's work on this page (promise jobs run first): one turn of the loop lets it out.
      await setImmediate();
    }
    source.onPage();
    pagesRead += 1;
    yield { items: items as T[], uri: pageUri };
    url = nextUrl;
  }
}

/**
 * The GET of a page, awaited later: its failure is handled there, or nowhere
 * when the caller stopped reading, which must not be an unhandled rejection.
 */
function requestPage(source: PageSource, url: URL): Promise<ApiResponse<unknown>> {
  const response = source.get(url);
  // A caller that stops early never awaits the page asked for ahead: its failure is not an unhandled rejection.
  response.catch(() => {});
  return response;
}

/** Resolves `next_page_uri` as a browser would: absolute as is, relative against the page it came from. */
function resolveNextPage(next: string, current: URL): URL | undefined {
  try {
    return new URL(next, current);
  } catch {
    return undefined;
  }
}

/** Same scheme, host and port, no credentials, and a path under the base URL's path. */
function isUnderBase(url: URL, origin: string, basePath: string): boolean {
  if (url.origin !== origin || url.username || url.password) return false;
  return url.pathname.startsWith(`${basePath}/`);
}

/**
 * The IDs a list has given so far, each with the page that first listed
 * it. A Map of the IDs only: the strings are the items' own.
 */
class ListedIds {
  readonly #firstPage = new Map<string, number>();
  /** Items of each page taken, page 1 first. */
  readonly #pageSizes: number[] = [];

  /**
   * Records the IDs of page `page`; returns the first that was listed before
   * (on an earlier page or earlier on this one), with `wholePage` set when
   * every item repeats one earlier page.
   */
  take(
    items: readonly unknown[],
    page: number,
  ): { readonly id: string; readonly firstPage: number; readonly wholePage?: number } | undefined {
    this.#pageSizes.push(items.length);
    let first: { id: string; firstPage: number } | undefined;
    let repeats = 0;
    const earlierPages = new Set<number>();
    for (const item of items) {
      const id = isRecord(item) ? item.id : undefined;
      if (typeof id !== 'string') continue;
      const firstPage = this.#firstPage.get(id);
      if (firstPage === undefined) {
        this.#firstPage.set(id, page);
        continue;
      }
      repeats += 1;
      earlierPages.add(firstPage);
      first ??= { id, firstPage };
    }
    if (first === undefined) return undefined;
    const [only] = earlierPages;
    const wholePage =
      repeats === items.length &&
      earlierPages.size === 1 &&
      only !== undefined &&
      only !== page &&
      this.#pageSizes[only - 1] === items.length
        ? only
        : undefined;
    return wholePage === undefined ? first : { ...first, wholePage };
  }
}

/** An ID from the service as a message quotes it: JSON-quoted, and cut if it is long. */
function quoteId(id: string): string {
  return JSON.stringify(id.length > QUOTED_ID_LENGTH ? `${id.slice(0, QUOTED_ID_LENGTH)}…` : id);
}
