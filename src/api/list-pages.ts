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
}

const PAGE_SIZE = '100';

/**
 * Every page of a list, asking for `limit=100` and following `next_page_uri`
 * until null. Throws a PaginationError, never ends early, when a page fails,
 * is not a list envelope, or points off the API or back to a page already
 * read: a partial list would look like an account with fewer objects.
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
    // Asked for before this page is handed over: the service prepares it while the caller works
    // through this one (issue 18).
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
