import type { Logger } from 'pino';
import { EdgesyncError } from '../errors.js';
import { USER_AGENT } from '../version.js';
import { ApiError, type ApiErrorDetails } from './api-error.js';
import type {
  ApiRequest,
  ApiResponse,
  EdgeApi,
  HttpMethod,
  ListPage,
  RequestOptions,
  RequestStats,
} from './edge-api.js';
import { classifyFetchFailure } from './fetch-failure.js';
import { NetworkError } from './network-error.js';
import { OutcomeUnknownError } from './outcome-unknown-error.js';
import { PaginationError } from './pagination-error.js';
import { RequestAbortedError } from './request-aborted-error.js';
import { RequestBudget } from './request-budget.js';
import {
  type AttemptFailure,
  createRetryPolicy,
  mayHaveApplied,
  parseRetryAfter,
  type RetryPolicy,
  type RetryPolicyOptions,
} from './retry-policy.js';
import { type Clock, type Sleep, systemClock, systemSleep } from './time-source.js';

/** One HTTP attempt, reported to `onRequest` (metrics, logs). */
export interface RequestEvent {
  readonly method: HttpMethod;
  /** Path relative to the base URL, with its query. */
  readonly path: string;
  /** The caller's label (`ip_policy_rules`), if it gave one. */
  readonly kind: string | undefined;
  /** HTTP status; undefined when no response arrived. */
  readonly status: number | undefined;
  /** The service's `error_code` for an error response, or the network failure (`timeout`, `connection_reset`, …). */
  readonly errorCode: string | undefined;
  /** Milliseconds from sending to the end of the body (or the failure). */
  readonly durationMs: number;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number;
}

export type RequestObserver = (event: RequestEvent) => void;

export interface ApiClientOptions {
  /** Base URL, e.g. `https://api.example.com` or `http://127.0.0.1:41234`; request paths are appended to it. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; never logged or put in an error. */
  readonly apiKey: string;
  /** The budget every attempt takes a slot from; share one instance per client. @default new RequestBudget() (120 per 60 s) */
  readonly budget?: RequestBudget;
  /** Per-attempt timeout, headers and body included, in milliseconds. @default 30000 */
  readonly timeoutMs?: number;
  /** Retry policy, or options for the default one. @default createRetryPolicy() */
  readonly retry?: RetryPolicy | RetryPolicyOptions;
  /** @default Date.now */
  readonly clock?: Clock;
  /** Waits between retries. @default a timer that honours the signal */
  readonly sleep?: Sleep;
  /** Called after every attempt. */
  readonly onRequest?: RequestObserver;
  /** Logs each attempt at debug; never headers or bodies. */
  readonly logger?: Logger;
  /** @default USER_AGENT of src/version.ts */
  readonly userAgent?: string;
}

export interface ApiClient extends EdgeApi {
  readonly budget: RequestBudget;
}

const SERVICE_VERSION = '2';
const PAGE_SIZE = '100';
const REDACTED = '[REDACTED]';

type AttemptOutcome =
  | { readonly type: 'response'; readonly status: number; readonly headers: Headers; readonly text: string }
  | { readonly type: 'network'; readonly error: NetworkError };

/**
 * The HTTP client of the Edge Configuration Service (see EdgeApi). Every
 * attempt goes through the budget; failures go through the retry policy.
 *
 * A DELETE that answers 404 after an earlier attempt whose outcome was
 * unknown (5xx, dropped connection, timeout) resolves as `{ status: 204 }`:
 * the earlier attempt deleted it, which is what the caller asked for.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = parseBaseUrl(options.baseUrl);
  // '' for a root base URL, else '/v2' style: no trailing slash, so `prefix + path` is exact.
  const basePath = base.pathname.replace(/\/+$/, '');
  const apiKey = options.apiKey;
  // Checked here so a bad key fails once, clearly, instead of as a network error on every attempt.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new EdgesyncError(
      'invalid_option',
      'API key must be non-empty printable ASCII without spaces (value not shown)',
    );
  }
  const budget = options.budget ?? new RequestBudget();
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new EdgesyncError('invalid_option', `API client: timeoutMs must be > 0 (found ${timeoutMs})`);
  }
  const clock = options.clock ?? systemClock;
  const sleep = options.sleep ?? systemSleep;
  const policy = isRetryPolicy(options.retry)
    ? options.retry
    : createRetryPolicy({ clock, ...options.retry });
  const log = options.logger?.child({ component: 'api-client' });
  const userAgent = options.userAgent ?? USER_AGENT;
  const budgetWaitedAtStart = budget.waitedMs;
  let requests = 0;
  let pages = 0;
  let retries = 0;

  function redact(text: string): string {
    return text.replaceAll(apiKey, REDACTED);
  }

  function report(event: RequestEvent): void {
    log?.debug(event, 'api request');
    if (!options.onRequest) return;
    try {
      options.onRequest(event);
    } catch (err) {
      log?.warn({ err }, 'onRequest observer threw');
    }
  }

  async function attemptOnce(
    method: HttpMethod,
    url: URL,
    path: string,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<AttemptOutcome> {
    const controller = new AbortController();
    const timeout = new Error('request timed out');
    const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const headers: Record<string, string> = {
      Authorization: `Bearer ${apiKey}`,
      'Service-Version': SERVICE_VERSION,
      'User-Agent': userAgent,
      Accept: 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    try {
      // `redirect: manual`: a redirect is an answer to report, not a reason to
      // send the key somewhere else.
      const response = await fetch(url, {
        method,
        headers,
        signal: controller.signal,
        redirect: 'manual',
        ...(body === undefined ? {} : { body }),
      });
      const text = await response.text();
      return { type: 'response', status: response.status, headers: response.headers, text };
    } catch (error) {
      if (signal?.aborted) {
        throw new RequestAbortedError(
          { method, path, mayHaveApplied: method !== 'GET' },
          { cause: signal.reason },
        );
      }
      const classified =
        controller.signal.aborted && controller.signal.reason === timeout
          ? { failure: 'timeout' as const, detail: `no complete response within ${timeoutMs} ms` }
          : classifyFetchFailure(error);
      return {
        type: 'network',
        error: new NetworkError({
          method,
          path,
          failure: classified.failure,
          detail: redact(classified.detail),
        }),
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  function apiErrorFrom(method: HttpMethod, path: string, status: number, text: string): ApiError {
    const parsed = parseJson(text);
    if (isRecord(parsed)) {
      const details = isRecord(parsed.details)
        ? (redactDeep(parsed.details, redact) as ApiErrorDetails)
        : undefined;
      return new ApiError({
        method,
        path,
        status,
        ...(typeof parsed.error_code === 'string' ? { errorCode: parsed.error_code } : {}),
        msg: redact(typeof parsed.msg === 'string' ? parsed.msg : ''),
        ...(details ? { details } : {}),
      });
    }
    return new ApiError({ method, path, status, msg: redact(text.trim().slice(0, 200)) });
  }

  async function send<T>(
    method: HttpMethod,
    url: URL,
    path: string,
    payload: unknown,
    requestOptions: RequestOptions,
  ): Promise<ApiResponse<T>> {
    const { kind } = requestOptions;
    // A signal of this request's own, so that its waits and fetch listen to it and not to the
    // caller's: one caller signal is shared by every request of a live read, and a listener per
    // waiting request on it trips MaxListenersExceededWarning. `AbortSignal.any` follows the caller's
    // signal without adding a listener to it.
    const signal = requestOptions.signal === undefined ? undefined : AbortSignal.any([requestOptions.signal]);
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    let waitedMs = 0;
    let earlierMayHaveApplied = false;
    for (let attempt = 1; ; attempt += 1) {
      let settleSlot: () => void;
      try {
        settleSlot = await budget.acquireSlot(signal);
      } catch (error) {
        if (error instanceof RequestAbortedError) {
          throw new RequestAbortedError(
            { method, path, mayHaveApplied: earlierMayHaveApplied },
            { cause: error.cause },
          );
        }
        throw error;
      }
      requests += 1;
      const started = clock();
      const outcome = await attemptOnce(method, url, path, body, signal);
      settleSlot();
      const durationMs = Math.max(0, clock() - started);
      const status = outcome.type === 'response' ? outcome.status : undefined;
      const errorCode =
        outcome.type === 'network'
          ? outcome.error.failure
          : outcome.status >= 400
            ? (apiErrorFrom(method, path, outcome.status, outcome.text).errorCode ?? undefined)
            : undefined;
      report({ method, path, kind, status, errorCode, durationMs, attempt });

      if (outcome.type === 'response' && outcome.status >= 200 && outcome.status < 300) {
        return successResponse<T>(method, path, outcome.status, outcome.text);
      }
      if (
        outcome.type === 'response' &&
        method === 'DELETE' &&
        outcome.status === 404 &&
        earlierMayHaveApplied
      ) {
        log?.debug(
          { method, path, kind, attempt },
          'delete answered 404 after an unknown outcome: already deleted',
        );
        return { status: 204, body: undefined as T };
      }
      const failure: AttemptFailure =
        outcome.type === 'response'
          ? { type: 'response', status: outcome.status, retryAfter: outcome.headers.get('retry-after') }
          : { type: 'network', failure: outcome.error.failure };
      const decision = policy.decide({ method, attempt, failure, waitedMs });
      if (!decision.retry) {
        if (failure.type === 'response' && failure.status === 429) {
          // Not retrying this one, but the account is still limited: hold the client's other requests.
          budget.pauseFor(parseRetryAfter(failure.retryAfter, clock()) ?? 0);
        }
        const error =
          outcome.type === 'response'
            ? apiErrorFrom(method, path, outcome.status, outcome.text)
            : outcome.error;
        if (method === 'POST' && (mayHaveApplied(failure) || earlierMayHaveApplied)) {
          throw new OutcomeUnknownError({ method, path }, { cause: error });
        }
        throw error;
      }
      retries += 1;
      waitedMs += decision.delayMs;
      if (mayHaveApplied(failure)) earlierMayHaveApplied = true;
      log?.debug({ method, path, kind, attempt, status, errorCode, delayMs: decision.delayMs }, 'retrying');
      if (failure.type === 'response' && failure.status === 429) {
        // The limit is per account: every request of this client waits, not just this one.
        budget.pauseFor(decision.delayMs);
        continue;
      }
      try {
        await sleep(decision.delayMs, signal);
      } catch (error) {
        if (signal?.aborted) {
          throw new RequestAbortedError(
            { method, path, mayHaveApplied: earlierMayHaveApplied },
            { cause: signal.reason },
          );
        }
        throw error;
      }
    }
  }

  function successResponse<T>(
    method: HttpMethod,
    path: string,
    status: number,
    text: string,
  ): ApiResponse<T> {
    if (status === 204 || text.trim() === '') return { status, body: undefined as T };
    const parsed = parseJson(text);
    if (parsed === undefined) {
      const error = new ApiError({ method, path, status, msg: 'response body is not JSON' });
      // The service answered 2xx, so a POST was applied, but without its body the caller cannot know the ID.
      if (method === 'POST') throw new OutcomeUnknownError({ method, path }, { cause: error });
      throw error;
    }
    return { status, body: parsed as T };
  }

  function urlFor(path: string): URL {
    if (!path.startsWith('/')) {
      throw new EdgesyncError('invalid_request', `request path must start with "/" (found "${path}")`);
    }
    return new URL(base.origin + basePath + path);
  }

  function pathOf(url: URL): string {
    return url.pathname.slice(basePath.length) + url.search;
  }

  async function* paginate<T>(path: string, listKey: string, requestOptions: RequestOptions = {}) {
    let url: URL | undefined = urlFor(path);
    if (!url.searchParams.has('limit')) url.searchParams.set('limit', PAGE_SIZE);
    const seen = new Set<string>();
    let pagesRead = 0;
    const fail = (failure: PaginationError['failure'], pageUri: string, detail: string, cause?: unknown) =>
      new PaginationError(
        { path, failure, pageUri, pagesRead, detail },
        cause === undefined ? {} : { cause },
      );
    while (url) {
      const pageUri = redact(url.href);
      seen.add(url.href);
      let response: ApiResponse<unknown>;
      try {
        response = await send<unknown>('GET', url, pathOf(url), undefined, requestOptions);
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
        if (!nextUrl || !isUnderBase(nextUrl, base.origin, basePath)) {
          throw fail('off_origin', redact(next), `next_page_uri is not under ${base.origin}${basePath}/`);
        }
        if (seen.has(nextUrl.href)) {
          throw fail('repeated_page', redact(nextUrl.href), 'next_page_uri points to a page already read');
        }
      }
      pages += 1;
      pagesRead += 1;
      const page: ListPage<T> = { items: items as T[], uri: pageUri };
      yield page;
      url = nextUrl;
    }
  }

  return {
    budget,
    request<T = unknown>(request: ApiRequest, requestOptions: RequestOptions = {}): Promise<ApiResponse<T>> {
      return send<T>(request.method, urlFor(request.path), request.path, request.body, requestOptions);
    },
    paginate,
    stats(): RequestStats {
      return { requests, pages, retries, rateLimitWaitMs: budget.waitedMs - budgetWaitedAtStart };
    },
  };
}

function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new EdgesyncError('invalid_option', `API base URL is not a URL (found "${text}")`, { cause });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username) {
    throw new EdgesyncError(
      'invalid_option',
      `API base URL must be http(s) without query or credentials (found "${url.origin}${url.pathname}")`,
    );
  }
  return url;
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

function isRetryPolicy(value: RetryPolicy | RetryPolicyOptions | undefined): value is RetryPolicy {
  return typeof (value as RetryPolicy | undefined)?.decide === 'function';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)]));
  }
  return value;
}
