import type { Logger } from 'pino';
import { EdgesyncError } from '../errors.js';
import { USER_AGENT } from '../version.js';
import type { ApiError } from './api-error.js';
import type {
  ApiRequest,
  ApiResponse,
  EdgeApi,
  HttpMethod,
  ListPage,
  PaginateOptions,
  RequestOptions,
  RequestStats,
} from './edge-api.js';
import { type AttemptOutcome, MAX_RESPONSE_BYTES, sendAttempt } from './http-attempt.js';
import { DEFAULT_MAX_LIST_OBJECTS, listPages } from './list-pages.js';
import { OutcomeUnknownError } from './outcome-unknown-error.js';
import { RequestAbortedError } from './request-aborted-error.js';
import { RequestBudget } from './request-budget.js';
import { ResponseTooLargeError } from './response-too-large-error.js';
import {
  type AttemptFailure,
  createRetryPolicy,
  mayHaveApplied,
  parseRetryAfter,
  type RetryPolicy,
  type RetryPolicyOptions,
} from './retry-policy.js';
import { SecretScrubber } from './secret-scrubber.js';
import { apiErrorFrom, successResponse } from './service-answer.js';
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
  /**
   * Deadline of one request, in milliseconds: its attempts (headers and body)
   * and the backoff waits between them, not the waits for the request budget
   * or a 429's pause. A server that accepts and never answers fails the
   * request after this long, once, instead of once per attempt. @default 30000
   */
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
  /**
   * The secrets every message from the service is scrubbed of; the client
   * adds its API key. Share it with whatever learns more secrets (the
   * manifests' loader). @default a scrubber of the API key alone
   */
  readonly secrets?: SecretScrubber;
  /**
   * Objects one list may hold: a list that goes past it fails its read
   * (`too_many_objects`) instead of being read forever. @default DEFAULT_MAX_LIST_OBJECTS (1,000,000)
   */
  readonly maxListObjects?: number;
  /**
   * Bytes of one response body, as sent and decompressed; a larger one
   * fails the request (`response_too_large`) without a retry. Tests lower it. @default MAX_RESPONSE_BYTES (32 MiB)
   */
  readonly maxResponseBytes?: number;
}

export interface ApiClient extends EdgeApi {
  readonly budget: RequestBudget;
}

const SERVICE_VERSION = '2';

/** The HTTP client of the Edge Configuration Service (see EdgeApi and HttpApiClient). */
export function createApiClient(options: ApiClientOptions): ApiClient {
  return new HttpApiClient(options);
}

/** What the retry loop knows of one request across its attempts. */
interface RequestInFlight {
  readonly method: HttpMethod;
  readonly url: URL;
  readonly path: string;
  readonly body: string | undefined;
  readonly kind: string | undefined;
  readonly signal: AbortSignal | undefined;
  /** `signal` or the caller's `stopBeforeSending`: what stops the request while it waits. */
  readonly waitSignal: AbortSignal | undefined;
  /** Milliseconds waited between attempts so far. */
  waitedMs: number;
  /**
   * Milliseconds of the request's deadline (`timeoutMs`) used so far: its
   * attempts on the wire and the waits between them, not the waits for the
   * request budget, which are this client's own pacing.
   */
  spentMs: number;
  /** An earlier attempt failed in a way that may have applied it (a 5xx, a drop after sending). */
  earlierMayHaveApplied: boolean;
}

/**
 * The HTTP client of the Edge Configuration Service. Every attempt goes
 * through the budget (`#attempt`, one HTTP exchange in `sendAttempt`);
 * failures go through the retry policy (`#send`, the retry loop); lists are
 * read by `listPages`.
 *
 * A DELETE that answers 404 after an earlier attempt whose outcome was
 * unknown (5xx, dropped connection, timeout) resolves as `{ status: 204 }`:
 * the earlier attempt deleted it, which is what the caller asked for.
 */
export class HttpApiClient implements ApiClient {
  readonly budget: RequestBudget;
  readonly #origin: string;
  /** '' for a root base URL, else '/v2' style: no trailing slash, so `basePath + path` is exact. */
  readonly #basePath: string;
  readonly #secrets: SecretScrubber;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  readonly #sleep: Sleep;
  readonly #policy: RetryPolicy;
  readonly #log: Logger | undefined;
  readonly #onRequest: RequestObserver | undefined;
  readonly #budgetWaitedAtStart: number;
  readonly #maxListObjects: number;
  readonly #maxResponseBytes: number;
  #requests = 0;
  #pages = 0;
  #retries = 0;

  constructor(options: ApiClientOptions) {
    const base = parseBaseUrl(options.baseUrl);
    this.#origin = base.origin;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    // Checked here so a bad key fails once, clearly, instead of as a network error on every attempt.
    if (!/^[\x21-\x7e]+$/.test(options.apiKey)) {
      throw new EdgesyncError(
        'invalid_option',
        'API key must be non-empty printable ASCII without spaces (value not shown)',
      );
    }
    this.#secrets = options.secrets ?? new SecretScrubber();
    this.#secrets.add(options.apiKey);
    this.#headers = {
      Authorization: `Bearer ${options.apiKey}`,
      'Service-Version': SERVICE_VERSION,
      'User-Agent': options.userAgent ?? USER_AGENT,
      Accept: 'application/json',
    };
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    if (!Number.isFinite(this.#timeoutMs) || this.#timeoutMs <= 0) {
      throw new EdgesyncError(
        'invalid_option',
        `API client: timeoutMs must be > 0 (found ${this.#timeoutMs})`,
      );
    }
    this.budget = options.budget ?? new RequestBudget();
    this.#clock = options.clock ?? systemClock;
    this.#sleep = options.sleep ?? systemSleep;
    // A Retry-After is taken for at most the budget's window, the service's own (--rate-limit).
    this.#policy = isRetryPolicy(options.retry)
      ? options.retry
      : createRetryPolicy({ clock: this.#clock, maxRetryAfterMs: this.budget.windowMs, ...options.retry });
    this.#log = options.logger?.child({ component: 'api-client' });
    this.#onRequest = options.onRequest;
    this.#budgetWaitedAtStart = this.budget.waitedMs;
    this.#maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.#maxListObjects = options.maxListObjects ?? DEFAULT_MAX_LIST_OBJECTS;
    if (!Number.isSafeInteger(this.#maxListObjects) || this.#maxListObjects < 1) {
      throw new EdgesyncError(
        'invalid_option',
        `API client: maxListObjects must be a whole number of at least 1 (found ${this.#maxListObjects})`,
      );
    }
  }

  request<T = unknown>(request: ApiRequest, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.#send<T>(request.method, this.#urlFor(request.path), request.path, request.body, options);
  }

  paginate<T = unknown>(
    path: string,
    listKey: string,
    options: PaginateOptions = {},
  ): AsyncIterable<ListPage<T>> {
    return listPages<T>(this.#urlFor(path), path, listKey, {
      readAhead: options.readAhead === true,
      maxObjects: this.#maxListObjects,
      origin: this.#origin,
      basePath: this.#basePath,
      get: (url) => this.#send<unknown>('GET', url, this.#pathOf(url), undefined, options),
      redact: (text) => this.#redact(text),
      onPage: () => {
        this.#pages += 1;
      },
    });
  }

  stats(): RequestStats {
    return {
      requests: this.#requests,
      pages: this.#pages,
      retries: this.#retries,
      rateLimitWaitMs: this.budget.waitedMs - this.#budgetWaitedAtStart,
    };
  }

  /** The retry loop: attempts until one succeeds or the policy gives up. */
  async #send<T>(
    method: HttpMethod,
    url: URL,
    path: string,
    payload: unknown,
    options: RequestOptions,
  ): Promise<ApiResponse<T>> {
    const request: RequestInFlight = {
      method,
      url,
      path,
      body: payload === undefined ? undefined : JSON.stringify(payload),
      kind: options.kind,
      // A signal of this request's own, so that its waits and its HTTP exchange listen to it and not to the
      // caller's: one caller signal is shared by every request of a live read, and a listener per
      // waiting request on it trips MaxListenersExceededWarning. `AbortSignal.any` follows the caller's
      // signal without adding a listener to it.
      signal: options.signal === undefined ? undefined : AbortSignal.any([options.signal]),
      waitSignal: waitSignal(options),
      waitedMs: 0,
      spentMs: 0,
      earlierMayHaveApplied: false,
    };
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.#attempt(request, attempt);
      if (outcome.type === 'too_large') throw this.#tooLarge(request, outcome);
      if (outcome.type === 'response' && outcome.status >= 200 && outcome.status < 300) {
        return successResponse<T>(method, path, outcome.status, outcome.text);
      }
      if (
        outcome.type === 'response' &&
        method === 'DELETE' &&
        outcome.status === 404 &&
        request.earlierMayHaveApplied
      ) {
        this.#log?.debug(
          { method, path, kind: request.kind, attempt },
          'delete answered 404 after an unknown outcome: already deleted',
        );
        return { status: 204, body: undefined as T };
      }
      const failure: AttemptFailure =
        outcome.type === 'response'
          ? { type: 'response', status: outcome.status, retryAfter: outcome.retryAfter }
          : { type: 'network', failure: outcome.error.failure };
      const decision = this.#policy.decide({ method, attempt, failure, waitedMs: request.waitedMs });
      if (!decision.retry || !this.#timeLeftFor(request, failure)) {
        throw this.#giveUp(request, outcome, failure);
      }
      // A backoff never waits past the deadline; one that reaches it ends the request.
      const leftMs = this.#timeoutMs - request.spentMs;
      if (decision.cappedFromMs !== undefined) {
        this.#log?.warn(
          { method, path, kind: request.kind, retryAfterMs: decision.cappedFromMs, waitMs: decision.delayMs },
          'Retry-After longer than the rate-limit window: waiting one window',
        );
      }
      await this.#waitBeforeRetry(request, attempt, failure, Math.min(decision.delayMs, leftMs));
      if (request.spentMs >= this.#timeoutMs) throw this.#giveUp(request, outcome, failure);
    }
  }

  /**
   * A body over the bound ends the request without a retry. A POST the
   * service answered 2xx was applied, but without its body its ID is
   * unknown: the caller looks it up by marker.
   */
  #tooLarge(request: RequestInFlight, outcome: Extract<AttemptOutcome, { type: 'too_large' }>): Error {
    const error = new ResponseTooLargeError({
      method: request.method,
      path: request.path,
      status: outcome.status,
      limitBytes: this.#maxResponseBytes,
      decoded: outcome.decoded,
    });
    const applied = outcome.status >= 200 && outcome.status < 300;
    if (request.method === 'POST' && (applied || request.earlierMayHaveApplied)) {
      return new OutcomeUnknownError({ method: request.method, path: request.path }, { cause: error });
    }
    return error;
  }

  /** One attempt inside the budget, reported to the observer. */
  async #attempt(request: RequestInFlight, attempt: number): Promise<AttemptOutcome> {
    const { method, path } = request;
    let settleSlot: () => void;
    try {
      settleSlot = await this.budget.acquireSlot(request.waitSignal);
      if (request.waitSignal?.aborted) {
        settleSlot();
        throw new RequestAbortedError({}, { cause: request.waitSignal.reason });
      }
    } catch (error) {
      if (error instanceof RequestAbortedError) {
        throw new RequestAbortedError(
          { method, path, mayHaveApplied: request.earlierMayHaveApplied },
          { cause: error.cause },
        );
      }
      throw error;
    }
    this.#requests += 1;
    const started = this.#clock();
    const outcome = await sendAttempt(
      {
        method,
        url: request.url,
        path,
        body: request.body,
        headers: this.#headers,
        timeoutMs: Math.max(1, this.#timeoutMs - request.spentMs),
        timeoutText: `within ${formatMs(this.#timeoutMs)}${attempt > 1 ? ', retries included' : ''}`,
        origin: this.#origin,
        redact: (text) => this.#redact(text),
        maxBodyBytes: this.#maxResponseBytes,
      },
      request.signal,
    );
    settleSlot();
    if (outcome.type === 'response' && outcome.status !== 429) this.budget.answered();
    request.spentMs += Math.max(0, this.#clock() - started);
    this.#report({
      method,
      path,
      kind: request.kind,
      status: outcome.type === 'network' ? undefined : outcome.status,
      errorCode:
        outcome.type === 'network'
          ? outcome.error.failure
          : outcome.type === 'too_large'
            ? 'response_too_large'
            : outcome.status >= 400
              ? (this.#apiErrorFrom(request, outcome.status, outcome.text).errorCode ?? undefined)
              : undefined,
      durationMs: Math.max(0, this.#clock() - started),
      attempt,
    });
    return outcome;
  }

  /**
   * Whether another attempt may start within the request's deadline. A
   * timeout used all that was left of it; backoff waits count (as the clock
   * measures them), a 429's pause does not (it is the budget's, shared by
   * every request).
   */
  #timeLeftFor(request: RequestInFlight, failure: AttemptFailure): boolean {
    if (failure.type === 'network' && failure.failure === 'timeout') return false;
    if (failure.type === 'response' && failure.status === 429) return true;
    return request.spentMs < this.#timeoutMs;
  }

  /** The error a request ends with when the policy stops retrying. */
  #giveUp(
    request: RequestInFlight,
    outcome: Exclude<AttemptOutcome, { type: 'too_large' }>,
    failure: AttemptFailure,
  ): Error {
    if (failure.type === 'response' && failure.status === 429) {
      // Not retrying this one, but the account is still limited: hold the client's other requests
      // (for at most one window: the budget caps every pause).
      this.budget.pauseFor(parseRetryAfter(failure.retryAfter, this.#clock()) ?? 0);
    }
    const error =
      outcome.type === 'response' ? this.#apiErrorFrom(request, outcome.status, outcome.text) : outcome.error;
    if (request.method === 'POST' && (mayHaveApplied(failure) || request.earlierMayHaveApplied)) {
      return new OutcomeUnknownError({ method: request.method, path: request.path }, { cause: error });
    }
    return error;
  }

  async #waitBeforeRetry(
    request: RequestInFlight,
    attempt: number,
    failure: AttemptFailure,
    delayMs: number,
  ): Promise<void> {
    const { method, path, kind } = request;
    this.#retries += 1;
    request.waitedMs += delayMs;
    if (mayHaveApplied(failure)) request.earlierMayHaveApplied = true;
    const status = failure.type === 'response' ? failure.status : undefined;
    this.#log?.debug({ method, path, kind, attempt, status, delayMs }, 'retrying');
    if (failure.type === 'response' && failure.status === 429) {
      // The limit is per account: every request of this client waits, not just this one.
      this.budget.pauseFor(delayMs);
      return;
    }
    const sleptFrom = this.#clock();
    try {
      await this.#sleep(delayMs, request.waitSignal);
    } catch (error) {
      if (request.waitSignal?.aborted) {
        throw new RequestAbortedError(
          { method, path, mayHaveApplied: request.earlierMayHaveApplied },
          { cause: request.waitSignal.reason },
        );
      }
      throw error;
    } finally {
      request.spentMs += Math.max(0, this.#clock() - sleptFrom);
    }
  }

  #apiErrorFrom(request: RequestInFlight, status: number, text: string): ApiError {
    return apiErrorFrom(request.method, request.path, status, text, (value) => this.#redact(value));
  }

  #report(event: RequestEvent): void {
    this.#log?.debug(event, 'api request');
    if (!this.#onRequest) return;
    try {
      this.#onRequest(event);
    } catch (err) {
      this.#log?.warn({ err }, 'onRequest observer threw');
    }
  }

  /**
   * The one place text from the service (an error's message, code and
   * details, a page's URI, a socket's words) is scrubbed of every secret the
   * run knows before it goes into an error, and so into a log or the
   * terminal.
   */
  #redact(text: string): string {
    return this.#secrets.scrub(text);
  }

  #urlFor(path: string): URL {
    if (!path.startsWith('/')) {
      throw new EdgesyncError('invalid_request', `request path must start with "/" (found "${path}")`);
    }
    return new URL(this.#origin + this.#basePath + path);
  }

  #pathOf(url: URL): string {
    return url.pathname.slice(this.#basePath.length) + url.search;
  }
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

/** `30 s`, `1.5 s`, `250 ms`. */
function formatMs(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The signal a request's waits (budget, backoff) listen to: its own, or `stopBeforeSending` too. */
function waitSignal(options: RequestOptions): AbortSignal | undefined {
  const signals = [options.signal, options.stopBeforeSending].filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  return signals.length === 0 ? undefined : AbortSignal.any(signals);
}

function isRetryPolicy(value: RetryPolicy | RetryPolicyOptions | undefined): value is RetryPolicy {
  return typeof (value as RetryPolicy | undefined)?.decide === 'function';
}
