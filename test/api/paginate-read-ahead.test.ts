import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { EdgeApi } from '../../src/api/edge-api.js';
import { PaginationError } from '../../src/api/pagination-error.js';
import { clientOnFakeTime } from './fake-time-client.js';
import { scriptedServers, sendJson, sendServiceError } from './scripted-server.js';

const serve = scriptedServers();

function clientFor(baseUrl: string): EdgeApi {
  return clientOnFakeTime(baseUrl, { apiKey: 'sk_test_ReadAheadKey', maxAttempts: 1 });
}

const page = (ids: string[], next: string | null) => ({
  ip_policy_rules: ids.map((id) => ({ id })),
  uri: '/ip_policy_rules',
  next_page_uri: next,
});

/** Page 1 points to page 2; page 2 is answered by `second`, after `secondAsked` resolves. */
async function twoPages(second: (response: ServerResponse) => void) {
  let resolveAsked: () => void = () => {};
  const secondAsked = new Promise<void>((resolve) => {
    resolveAsked = resolve;
  });
  const server = await serve((request, response) => {
    if (new URL(request.url, 'http://x').searchParams.get('before_id') === null) {
      sendJson(response, 200, page(['ipr_2'], '/ip_policy_rules?limit=1&before_id=ipr_2'));
      return;
    }
    resolveAsked();
    second(response);
  });
  return { server, secondAsked };
}

describe('paginate with readAhead', () => {
  it('asks for the next page while the caller still holds the current one', async () => {
    const { server, secondAsked } = await twoPages((response) =>
      sendJson(response, 200, page(['ipr_1'], null)),
    );
    const api = clientFor(server.url);

    const ids: unknown[] = [];
    for await (const listed of api.paginate<{ id: string }>('/ip_policy_rules', 'ip_policy_rules', {
      readAhead: true,
    })) {
      // Without read-ahead, page 2 is asked for only after this body returns: this would never resolve.
      if (ids.length === 0) await secondAsked;
      ids.push(...listed.items.map((item) => item.id));
    }

    expect(ids).toEqual(['ipr_2', 'ipr_1']);
    expect(server.requests).toHaveLength(2);
    expect(api.stats()).toMatchObject({ pages: 2, requests: 2 });
  });

  it('reports a page asked for ahead that fails after the page before it was handed over', async () => {
    const { server } = await twoPages((response) => sendServiceError(response, 500, 'internal', 'boom'));
    const api = clientFor(server.url);

    const items: unknown[] = [];
    let failure: unknown;
    try {
      for await (const listed of api.paginate('/ip_policy_rules', 'ip_policy_rules', { readAhead: true }))
        items.push(...listed.items);
    } catch (error) {
      failure = error;
    }

    expect(items).toEqual([{ id: 'ipr_2' }]);
    expect(failure).toBeInstanceOf(PaginationError);
    expect(failure).toMatchObject({ failure: 'page_failed', pagesRead: 1 });
  });

  it('leaves no unhandled rejection when the caller stops and the page asked for ahead then fails', async () => {
    let failSecond: () => void = () => {};
    const { server, secondAsked } = await twoPages((response) => {
      failSecond = () => sendServiceError(response, 400, 'invalid', 'not this page');
    });
    const api = clientFor(server.url);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      for await (const _listed of api.paginate('/ip_policy_rules', 'ip_policy_rules', { readAhead: true })) {
        await secondAsked;
        break;
      }
      failSecond();
      // Long enough for the answer to settle the request and for Node to report a rejection nobody handles.
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }

    expect(server.requests).toHaveLength(2);
    expect(unhandled).toEqual([]);
  });
});
