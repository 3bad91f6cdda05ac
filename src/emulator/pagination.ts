import { PAGE_SIZE, REPEATED_QUERY_PARAMETER } from './api-errors.js';
import type { HandlerEnv, HandlerRequest, HandlerResult } from './handler.js';
import type { PageSource } from './ordered-collection.js';
import type { BaseRecord } from './records.js';
import { isIdOfKind } from './resource-id.js';
import { ServiceError } from './service-error.js';

export const MAX_PAGE_SIZE = 100;

function parseLimit(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const limit = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_PAGE_SIZE)) {
    throw PAGE_SIZE.refuseField(
      'limit',
      `must be a whole number from 1 to ${MAX_PAGE_SIZE} (found "${raw}")`,
    );
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
    throw REPEATED_QUERY_PARAMETER.refuse(
      'give before_id or beforeId, not both: they are one parameter',
      'before_id',
    );
  }
  return snake ?? camel;
}

/**
 * The position a cursor names: its creation sequence when the list held it
 * (deleted since included); otherwise, under `before-id=any`, the place an
 * ID of the list's kind sorts at (IDs sort by creation time). A cursor the
 * family does not document an answer for is refused without a number.
 */
function cursorPosition<R extends BaseRecord>(
  records: PageSource<R>,
  beforeId: string,
  idPrefix: string,
  env: HandlerEnv,
): number | undefined {
  const held = env.store.seqOf(beforeId);
  if (held !== undefined) return held;
  if (env.variants['before-id'] === 'any' && isIdOfKind(idPrefix, beforeId))
    return records.seqSortingAt(beforeId);
  throw new ServiceError(
    400,
    'invalid_field',
    `before_id: ${beforeId} is not an ID this list has held`,
    'before_id',
  );
}

/**
 * One page of a list, newest first. `before_id` names the last item of the
 * previous page; it may have been deleted since (the store remembers the
 * position of deleted IDs). `next_page_uri` is absolute and null on the last page.
 */
export function listPage<R extends BaseRecord>(
  records: PageSource<R>,
  list: { readonly key: string; readonly idPrefix: string },
  render: (record: R) => unknown,
  request: HandlerRequest,
  env: HandlerEnv,
): HandlerResult {
  const listKey = list.key;
  const limit = parseLimit(request.query.get('limit'));
  const beforeId = beforeIdOf(request.query);
  const beforeSeq = beforeId === null ? undefined : cursorPosition(records, beforeId, list.idPrefix, env);
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
