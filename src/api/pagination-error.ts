import { EdgesyncError } from '../errors.js';

/**
 * Why a listing stopped before its end. A listing that fails is never
 * returned as a shorter list: pruning decisions depend on it being complete.
 * `repeated_page`: a next page already read, or one holding exactly the
 * items of an earlier page; `repeated_id`: an object listed twice;
 * `too_many_objects`: past the bound on one list; `empty_pages`: pages
 * without items that keep pointing on.
 */
export const PAGINATION_FAILURES = [
  'page_failed',
  'off_origin',
  'repeated_page',
  'repeated_id',
  'too_many_objects',
  'empty_pages',
  'bad_envelope',
] as const;
export type PaginationFailure = (typeof PAGINATION_FAILURES)[number];

export class PaginationError extends EdgesyncError {
  /** The list path as the caller asked for it (`/ip_policy_rules`). */
  readonly path: string;
  readonly failure: PaginationFailure;
  /** The page URI that failed or was refused. */
  readonly pageUri: string;
  /** Pages read successfully before the failure. */
  readonly pagesRead: number;

  constructor(
    init: {
      readonly path: string;
      readonly failure: PaginationFailure;
      readonly pageUri: string;
      readonly pagesRead: number;
      readonly detail: string;
    },
    options?: { cause?: unknown },
  ) {
    super(
      'pagination_failed',
      `listing ${init.path} failed after ${init.pagesRead} page(s): ${init.failure.replaceAll('_', ' ')}: ${init.detail}`,
      options,
    );
    this.path = init.path;
    this.failure = init.failure;
    this.pageUri = init.pageUri;
    this.pagesRead = init.pagesRead;
  }
}
