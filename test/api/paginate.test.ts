import { describe, expect, it } from 'vitest';
import type { EdgeApi, ListPage } from '../../src/api/edge-api.js';
import { DEFAULT_MAX_LIST_OBJECTS } from '../../src/api/list-pages.js';
import { PaginationError } from '../../src/api/pagination-error.js';
import { MAX_LIST_OBJECTS_DEFAULT } from '../../src/cli/connection-flags.js';
import { clientOnFakeTime } from './fake-time-client.js';
import { scriptedServers, sendJson, sendServiceError } from './scripted-server.js';

const API_KEY = 'sk_test_PageKey9876543210';

const serve = scriptedServers();

function clientFor(baseUrl: string, maxAttempts = 3, maxListObjects?: number): EdgeApi {
  return clientOnFakeTime(baseUrl, {
    apiKey: API_KEY,
    maxAttempts,
    ...(maxListObjects === undefined ? {} : { maxListObjects }),
  });
}

/** A list whose page N is `pages[N - 1]` (ids), each pointing to the next under a fresh URI; the last to null. */
function pagedList(pages: readonly (readonly string[])[]) {
  return serve((request, response) => {
    const n = Number(new URL(request.url, 'http://x').searchParams.get('page') ?? '1');
    const ids = pages[n - 1] ?? [];
    sendJson(response, 200, page([...ids], n < pages.length ? `/ip_policy_rules?page=${n + 1}` : null));
  });
}

/** A list that never ends: page N holds what `itemsOf(N)` says and points to page N + 1. */
function endlessList(itemsOf: (n: number) => string[]) {
  return serve((request, response) => {
    const n = Number(new URL(request.url, 'http://x').searchParams.get('page') ?? '1');
    sendJson(response, 200, page(itemsOf(n), `/ip_policy_rules?page=${n + 1}`));
  });
}

/** Reads every page; what a caller building a live state does. */
async function readAll<T>(pages: AsyncIterable<ListPage<T>>): Promise<{ items: T[]; uris: string[] }> {
  const items: T[] = [];
  const uris: string[] = [];
  for await (const page of pages) {
    items.push(...page.items);
    uris.push(page.uri);
  }
  return { items, uris };
}

async function readAllError(
  pages: AsyncIterable<ListPage<unknown>>,
): Promise<{ error: unknown; items: unknown[] }> {
  const items: unknown[] = [];
  try {
    for await (const page of pages) items.push(...page.items);
  } catch (error) {
    return { error, items };
  }
  throw new Error(`expected the listing to fail, it returned ${items.length} items`);
}

const page = (ids: string[], next: string | null) => ({
  ip_policy_rules: ids.map((id) => ({ id })),
  uri: '/ip_policy_rules',
  next_page_uri: next,
});

describe('paginate', () => {
  it('follows relative and absolute next_page_uri until null, asking for 100 a page first', async () => {
    const server = await serve((request, response) => {
      const url = new URL(request.url, 'http://x');
      const before = url.searchParams.get('before_id');
      if (before === null)
        sendJson(response, 200, page(['ipr_5', 'ipr_4'], '/ip_policy_rules?limit=2&before_id=ipr_4'));
      else if (before === 'ipr_4')
        sendJson(
          response,
          200,
          page(['ipr_3', 'ipr_2'], `${server.url}/ip_policy_rules?limit=2&before_id=ipr_2`),
        );
      else sendJson(response, 200, page(['ipr_1'], null));
    });
    const api = clientFor(server.url);

    const { items, uris } = await readAll(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(items).toEqual([
      { id: 'ipr_5' },
      { id: 'ipr_4' },
      { id: 'ipr_3' },
      { id: 'ipr_2' },
      { id: 'ipr_1' },
    ]);
    expect(server.requests.map((request) => request.url)).toEqual([
      '/ip_policy_rules?limit=100',
      '/ip_policy_rules?limit=2&before_id=ipr_4',
      '/ip_policy_rules?limit=2&before_id=ipr_2',
    ]);
    expect(uris[0]).toBe(`${server.url}/ip_policy_rules?limit=100`);
    expect(api.stats()).toMatchObject({ pages: 3, requests: 3 });
    expect(server.requests.every((request) => request.headers['service-version'] === '2')).toBe(true);
  });

  it('keeps pages under the base path when the base URL has one', async () => {
    const server = await serve((request, response) => {
      if (request.url.includes('before_id')) sendJson(response, 200, page(['ipr_1'], null));
      else sendJson(response, 200, page(['ipr_2'], 'ip_policy_rules?before_id=ipr_2'));
    });
    const api = clientFor(`${server.url}/v2`);

    const { items } = await readAll(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(items).toHaveLength(2);
    expect(server.requests.map((request) => request.url)).toEqual([
      '/v2/ip_policy_rules?limit=100',
      '/v2/ip_policy_rules?before_id=ipr_2',
    ]);
  });

  it.each([
    ['another host', 'http://evil.example/ip_policy_rules?before_id=ipr_1'],
    ['another scheme', 'https://127.0.0.1:PORT/ip_policy_rules?before_id=ipr_1'],
    ['another port', 'http://127.0.0.1:1/ip_policy_rules?before_id=ipr_1'],
    ['credentials', 'http://user:pw@127.0.0.1:PORT/v2/ip_policy_rules?before_id=ipr_1'],
    ['a path outside the base path', '/other/ip_policy_rules?before_id=ipr_1'],
    ['a path escaping the base path', '/v2/../ip_policy_rules?before_id=ipr_1'],
    ['a protocol-relative URI', '//evil.example/v2/ip_policy_rules'],
  ])('refuses a next_page_uri pointing to %s', async (_case, next) => {
    const server = await serve((_request, response) =>
      sendJson(response, 200, page(['ipr_2'], next.replace('PORT', String(new URL(server.url).port)))),
    );
    const api = clientFor(`${server.url}/v2`);

    const { error, items } = await readAllError(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error).toMatchObject({
      code: 'pagination_failed',
      failure: 'off_origin',
      path: '/ip_policy_rules',
    });
    expect(items).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a page that repeats', async () => {
    const server = await serve((request, response) => {
      if (request.url.includes('before_id=ipr_3'))
        sendJson(response, 200, page(['ipr_2'], '/ip_policy_rules?limit=100'));
      else sendJson(response, 200, page(['ipr_3'], '/ip_policy_rules?before_id=ipr_3'));
    });
    const api = clientFor(server.url);

    const { error } = await readAllError(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(error).toMatchObject({ failure: 'repeated_page', pagesRead: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    [
      'an id on page 1 and again on page 2',
      [['ipr_b', 'ipr_a'], ['ipr_a']],
      'repeated_id',
      'repeated id: "ipr_a" is listed on page 1 and again on page 2',
    ],
    [
      'an id twice on one page',
      [['ipr_a', 'ipr_b', 'ipr_a']],
      'repeated_id',
      'repeated id: "ipr_a" is listed twice on page 1',
    ],
    [
      'a page that lists page 1 again under another URI',
      [
        ['ipr_b', 'ipr_a'],
        ['ipr_b', 'ipr_a'],
      ],
      'repeated_page',
      'repeated page: page 2 lists the same 2 object(s) as page 1 (the first: "ipr_b")',
    ],
    [
      'a page that lists part of page 1 again',
      [['ipr_c', 'ipr_b', 'ipr_a'], ['ipr_a']],
      'repeated_id',
      'repeated id: "ipr_a" is listed on page 1 and again on page 2',
    ],
  ])('fails a list with %s, naming the list and what repeated', async (_case, pages, failure, words) => {
    const server = await pagedList(pages);
    const api = clientFor(server.url);

    const { error, items } = await readAllError(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error).toMatchObject({ code: 'pagination_failed', failure, path: '/ip_policy_rules' });
    expect((error as Error).message).toBe(
      `listing /ip_policy_rules failed after ${pages.length - 1} page(s): ${words}`,
    );
    expect(items).toEqual(pages.slice(0, -1).flatMap((ids) => ids.map((id) => ({ id }))));
  });

  it("has --max-list-objects default to the client's own bound", () => {
    expect(MAX_LIST_OBJECTS_DEFAULT).toBe(String(DEFAULT_MAX_LIST_OBJECTS));
  });

  it('reads a list of exactly maxListObjects objects, and fails one of one more', async () => {
    const full = await pagedList([
      ['ipr_4', 'ipr_3'],
      ['ipr_2', 'ipr_1'],
    ]);
    const over = await pagedList([['ipr_5', 'ipr_4'], ['ipr_3', 'ipr_2'], ['ipr_1']]);

    const read = await readAll(clientFor(full.url, 3, 4).paginate('/ip_policy_rules', 'ip_policy_rules'));
    const { error } = await readAllError(
      clientFor(over.url, 3, 4).paginate('/ip_policy_rules', 'ip_policy_rules'),
    );

    expect(read.items).toHaveLength(4);
    expect(error).toMatchObject({ failure: 'too_many_objects', pagesRead: 2 });
    expect((error as Error).message).toBe(
      'listing /ip_policy_rules failed after 2 page(s): too many objects: more than 4 objects, the bound on one list (--max-list-objects; raise it if the account holds more)',
    );
  });

  it('fails a next_page_uri that never ends at the object bound, new ids on every page', async () => {
    const server = await endlessList((n) => [`ipr_${n}a`, `ipr_${n}b`]);
    const api = clientFor(server.url, 3, 50);

    const { error } = await readAllError(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(error).toMatchObject({ failure: 'too_many_objects', pagesRead: 25 });
    expect(server.requests).toHaveLength(26);
  });

  it('fails a next_page_uri that never ends with empty pages after a few in a row', async () => {
    const server = await endlessList((n) => (n === 1 ? ['ipr_1'] : []));
    const api = clientFor(server.url);

    const { error } = await readAllError(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(error).toMatchObject({ failure: 'empty_pages', pagesRead: 10 });
    expect((error as Error).message).toMatch(
      /10 pages in a row without an object still point to a next page$/,
    );
  });

  it('reads an empty page that points on when the list goes on after it', async () => {
    const server = await pagedList([['ipr_3'], [], ['ipr_2'], [], []]);
    const api = clientFor(server.url);

    const { items } = await readAll(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(items).toEqual([{ id: 'ipr_3' }, { id: 'ipr_2' }]);
  });

  it('throws when a page fails after retries, never ending as if the list were complete', async () => {
    const server = await serve((request, response) => {
      if (request.url.includes('before_id')) sendServiceError(response, 503, 'service_unavailable', 'busy');
      else sendJson(response, 200, page(['ipr_3', 'ipr_2'], '/ip_policy_rules?before_id=ipr_2'));
    });
    const api = clientFor(server.url, 3);

    const { error, items } = await readAllError(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(error).toBeInstanceOf(PaginationError);
    expect(error).toMatchObject({ failure: 'page_failed', pagesRead: 1, cause: { status: 503 } });
    expect((error as Error).message).toMatch(
      /^listing \/ip_policy_rules failed after 1 page\(s\): page failed: GET /,
    );
    expect(items).toHaveLength(2);
    expect(server.requests).toHaveLength(4);
  });

  it.each([
    ['a body without the list key', { items: [], next_page_uri: null }],
    ['a list key that is not a list', { ip_policy_rules: {}, next_page_uri: null }],
    ['a next_page_uri that is not a string', { ip_policy_rules: [], next_page_uri: 42 }],
  ])('refuses %s', async (_case, body) => {
    const server = await serve((_request, response) => sendJson(response, 200, body));
    const api = clientFor(server.url);

    const { error } = await readAllError(api.paginate('/ip_policy_rules', 'ip_policy_rules'));

    expect(error).toMatchObject({ failure: 'bad_envelope' });
  });
});
