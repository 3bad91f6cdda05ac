/**
 * The contract between everything that talks to the service and the HTTP
 * client that does it (src/api/client.ts). Kinds, the live-state reader and
 * the executor depend on this interface only.
 */
export const HTTP_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface ApiRequest {
  readonly method: HttpMethod;
  /** Path relative to the base URL, starting with `/` (`/ip_policy_rules/ipr_…`). */
  readonly path: string;
  /** JSON body; absent for GET and DELETE. */
  readonly body?: unknown;
}

export interface ApiResponse<T = unknown> {
  readonly status: number;
  /** Parsed JSON body; undefined for 204. */
  readonly body: T;
}

export interface RequestOptions {
  /** Aborts the request at any point, an attempt on the wire included. */
  readonly signal?: AbortSignal;
  /**
   * Aborts the request only while none of its attempts is on the wire:
   * waiting for the request budget or between retries. An interrupted apply
   * uses it to stop what was not sent at once and give what was sent time to
   * answer. The RequestAbortedError's `mayHaveApplied` says whether an
   * earlier attempt may have been applied.
   */
  readonly stopBeforeSending?: AbortSignal;
  /**
   * Label for metrics and logs (`ip_policy_rules`, `tcp_edges`): the kind, for a module's request too.
   */
  readonly kind?: string;
}

export interface PaginateOptions extends RequestOptions {
  /**
   * The caller reads every page: the next page is asked for as soon as this
   * one is read, so the service prepares it while the caller works through
   * this one. A caller that stops early must abort `signal`, or one more page
   * is read. @default false
   */
  readonly readAhead?: boolean;
}

export interface ListPage<T> {
  readonly items: readonly T[];
  /** The page's own URI, as requested. */
  readonly uri: string;
}

export interface RequestStats {
  /** HTTP requests sent, retries included. */
  readonly requests: number;
  /** List pages read successfully. */
  readonly pages: number;
  readonly retries: number;
  /** Milliseconds spent waiting for the request budget or a Retry-After. */
  readonly rateLimitWaitMs: number;
}

export interface EdgeApi {
  /**
   * Sends one request within the request budget, retrying per the retry
   * policy. Resolves with 2xx responses; rejects with ApiError for others and
   * with an error of code `outcome_unknown` when a POST may or may not have
   * been applied (the caller resolves that by lookup).
   */
  request<T = unknown>(request: ApiRequest, options?: RequestOptions): Promise<ApiResponse<T>>;
  /**
   * Every page of a list (`/ip_policy_rules`, key `ip_policy_rules`), asking
   * for `limit=100` and following `next_page_uri` until null. Throws, never
   * ends early, when a page fails after retries, the next page points off
   * the API's origin, or a page repeats.
   */
  paginate<T = unknown>(path: string, listKey: string, options?: PaginateOptions): AsyncIterable<ListPage<T>>;
  /** Counters since the client was made. */
  stats(): RequestStats;
}
