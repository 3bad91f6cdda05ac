import type { HandlerEnv, HandlerRequest, HandlerResult } from './handler.js';
import type { PageSource } from './ordered-collection.js';
import type { BaseRecord } from './records.js';
import { invalidField } from './service-error.js';

export const MAX_PAGE_SIZE = 100;

function parseLimit(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw))
    throw invalidField('limit', `must be an integer from 1 to ${MAX_PAGE_SIZE} (found "${raw}")`);
  const limit = Number(raw);
  if (limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalidField('limit', `must be an integer from 1 to ${MAX_PAGE_SIZE} (found ${limit})`);
  }
  return limit;
}

/**
 * The cursor: `before_id`, or `beforeId`, the name the family's TypeScript
 * client sends (its pager would otherwise get page 1 forever). One of the two.
 */
function beforeIdOf(query: URLSearchParams): string | null {
  const snake = query.get('before_id');
  const camel = query.get('beforeId');
  if (snake !== null && camel !== null) {
    throw invalidField('before_id', 'give before_id or beforeId, not both');
  }
  return snake ?? camel;
}

/**
 * One page of a list, newest first. `before_id` names the last item of the
 * previous page; it may have been deleted since (the store remembers the
 * position of deleted IDs). `next_page_uri` is absolute and null on the last page.
 */
export function listPage<R extends BaseRecord>(
  records: PageSource<R>,
  listKey: string,
  render: (record: R) => unknown,
  request: HandlerRequest,
  env: HandlerEnv,
): HandlerResult {
  const limit = parseLimit(request.query.get('limit'));
  const beforeId = beforeIdOf(request.query);
  let beforeSeq: number | undefined;
  if (beforeId !== null) {
    beforeSeq = env.store.seqOf(beforeId);
    if (beforeSeq === undefined)
      throw invalidField('before_id', `${beforeId} is not an ID this list has held`);
  }
  const pageSize = Math.min(limit ?? MAX_PAGE_SIZE, env.pageSizeMax);
  const { records: page, more } = records.page(beforeSeq, pageSize);
  const last = page[page.length - 1];
  let nextPageUri: string | null = null;
  if (more && last) {
    const next = new URLSearchParams();
    if (limit !== undefined) next.set('limit', String(limit));
    next.set('before_id', last.id);
    nextPageUri = `${env.baseUrl}${request.path}?${next.toString()}`;
  }
  return {
    status: 200,
    body: { [listKey]: page.map(render), uri: `${env.baseUrl}${request.path}`, next_page_uri: nextPageUri },
  };
}
