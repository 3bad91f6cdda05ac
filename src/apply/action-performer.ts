import type { Logger } from 'pino';
import type { ApiRequest, ApiResponse, EdgeApi } from '../api/edge-api.js';
import { EdgesyncError } from '../errors.js';
import { resolvePendingIds } from '../plan/pending-id.js';
import type { Action } from '../plan/plan.js';
import { isAbortedBeforeSending, isAlreadyAbsent, mayHaveLanded } from './action-failure.js';
import { ignoredEmptyLists } from './ignored-empty-lists.js';
import { ActionInterruptedError, OutcomeUnsettledError } from './interruption-outcomes.js';
import type { MarkerLookup } from './marker-lookup.js';
import { moduleWriteLanded } from './unknown-outcome.js';

/** The note of a delete that found nothing to delete: the service answered 404. */
export const ALREADY_ABSENT = 'already absent';

/** What one action did, beyond "done". */
export interface ActionDone {
  /** The ID a create made. */
  readonly id?: string;
  /** How it got done when it was not the plain answer of one request: "already absent", … */
  readonly note?: string;
}

export interface ActionPerformerOptions {
  readonly api: EdgeApi;
  /** Finds the object an outcome-unknown create may have made. */
  readonly markerLookup: Pick<MarkerLookup, 'find'>;
  /** Aborts the performer's writes, in flight included. */
  readonly signal?: AbortSignal;
  /** Aborts a write that waits to be sent (request budget, backoff); one on the wire goes on. */
  readonly stopBeforeSending?: AbortSignal | undefined;
  /** Aborts lookups and read-backs that settle unknown outcomes. @default `signal` */
  readonly settleSignal?: AbortSignal;
  readonly logger: Logger;
  /**
   * True once no write may be sent again: an unknown outcome is then
   * reported as is, not resolved by sending the write once more.
   * @default () => false
   */
  readonly stopping?: () => boolean;
  /**
   * The GET that reads back the module a write sent, after an unknown
   * outcome. @default a GET on the write's own path, which the service answers for every module
   */
  readonly moduleReadRequest?: (action: Action, written: ApiRequest) => ApiRequest;
  /**
   * Tries of one write before it fails: each send, and each lookup or
   * read-back that failed, is one (see ExecutePlanOptions.maxAttempts).
   * @default 5
   */
  readonly maxAttempts?: number;
}

/**
 * Carries out one action: sends its request (with the IDs of earlier creates
 * filled in), and settles an unknown outcome before sending a write again.
 * A create whose outcome is unknown is looked up by its ownership marker, a
 * module write is read back; only a write that did not land is sent again,
 * so a create is never made twice. A DELETE answered 404 counts as done.
 */
export class ActionPerformer {
  readonly #api: EdgeApi;
  readonly #markerLookup: Pick<MarkerLookup, 'find'>;
  readonly #signal: AbortSignal | undefined;
  readonly #stopBeforeSending: AbortSignal | undefined;
  readonly #settleSignal: AbortSignal | undefined;
  readonly #log: Logger;
  readonly #stopping: () => boolean;
  readonly #moduleReadRequest: (action: Action, written: ApiRequest) => ApiRequest;
  readonly #maxAttempts: number;
  /** IDs made by creates so far, by action key, for the requests that name them. */
  readonly #createdIds = new Map<string, string>();

  constructor(options: ActionPerformerOptions) {
    const maxAttempts = options.maxAttempts ?? 5;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new EdgesyncError(
        'invalid_option',
        `maxAttempts: expected a whole number of at least 1 (found ${maxAttempts})`,
      );
    }
    this.#api = options.api;
    this.#markerLookup = options.markerLookup;
    this.#signal = options.signal;
    this.#stopBeforeSending = options.stopBeforeSending;
    this.#settleSignal = options.settleSignal ?? options.signal;
    this.#log = options.logger;
    this.#stopping = options.stopping ?? (() => false);
    this.#moduleReadRequest =
      options.moduleReadRequest ?? ((_action, written) => ({ method: 'GET', path: written.path }));
    this.#maxAttempts = maxAttempts;
  }

  /** IDs made by creates so far, by action key. */
  get createdIds(): ReadonlyMap<string, string> {
    return this.#createdIds;
  }

  async perform(action: Action): Promise<ActionDone> {
    const request = resolvePendingIds(action.request, this.#createdIds);
    const done =
      request.method === 'DELETE' ? await this.#delete(action, request) : await this.#write(action, request);
    if (done.id !== undefined && request.method === 'POST') this.#createdIds.set(action.key, done.id);
    return done;
  }

  async #delete(action: Action, request: ApiRequest): Promise<ActionDone> {
    try {
      await this.#send(action, request);
      return {};
    } catch (error) {
      // A DELETE whose first answer was lost comes back 404 on retry: the goal is reached either way.
      if (isAlreadyAbsent(error)) return { note: ALREADY_ABSENT };
      if (isAbortedBeforeSending(error)) throw new ActionInterruptedError(NOT_SENT);
      if (!mayHaveLanded(error)) throw error;
      return await this.#settleAfterInterruption(action, request);
    }
  }

  /** Sends a write until it lands, settling every unknown outcome before sending again. */
  async #write(action: Action, request: ApiRequest): Promise<ActionDone> {
    let attempts = 0;
    // Set while a send's outcome is unknown and not yet settled by a lookup or read-back.
    let unknown: unknown;
    for (;;) {
      if (unknown === undefined) {
        attempts += 1;
        try {
          return await this.#sendWrite(action, request);
        } catch (error) {
          if (isAbortedBeforeSending(error)) throw new ActionInterruptedError(NOT_SENT);
          if (!mayHaveLanded(error)) throw error;
          if (request.method === 'POST' && action.marker === undefined) throw error;
          this.#log.warn(
            { action: action.key, attempts },
            request.method === 'POST'
              ? 'create outcome unknown: looking it up by its marker'
              : 'write outcome unknown: reading it back',
          );
          unknown = error;
        }
      }
      let settled: ActionDone | undefined;
      try {
        settled = await this.settle(action, request);
      } catch (error) {
        // The outcome is still unknown: look again if tries are left, never send blindly.
        attempts += 1;
        if (this.#stopping()) throw new OutcomeUnsettledError({ cause: error });
        if (attempts > this.#maxAttempts) throw error;
        this.#log.warn(
          { action: action.key, attempts, err: error },
          'lookup after an unknown outcome failed',
        );
        continue;
      }
      if (settled !== undefined) return settled;
      if (this.#stopping()) throw new ActionInterruptedError(NOT_LANDED);
      if (attempts >= this.#maxAttempts) throw unknown;
      unknown = undefined;
    }
  }

  /** A DELETE aborted in flight by the interruption: gone means it landed. */
  async #settleAfterInterruption(action: Action, request: ApiRequest): Promise<ActionDone> {
    let settled: ActionDone | undefined;
    try {
      settled = await this.settle(action, request);
    } catch (error) {
      throw new OutcomeUnsettledError({ cause: error });
    }
    if (settled === undefined) throw new ActionInterruptedError(NOT_LANDED);
    return settled;
  }

  async #sendWrite(action: Action, request: ApiRequest): Promise<ActionDone> {
    const response = await this.#send<{ id?: unknown }>(action, request);
    if (request.method !== 'POST') {
      const ignored = ignoredEmptyLists(request.body, response.body);
      if (ignored.length > 0) throw emptyListIgnored(request, ignored);
      return {};
    }
    const id = response.body?.id;
    if (typeof id !== 'string') {
      throw new EdgesyncError(
        'unexpected_response',
        `${request.method} ${request.path} answered without an id`,
      );
    }
    return { id };
  }

  /**
   * Whether a write whose outcome is unknown landed: what it did if so,
   * undefined if it did not (and may be sent again). `request` is the write
   * as sent, pending IDs filled in.
   */
  async settle(action: Action, request: ApiRequest): Promise<ActionDone | undefined> {
    if (request.method === 'POST' && action.marker !== undefined) {
      const id = await this.#markerLookup.find({
        path: request.path,
        kind: action.kind,
        marker: action.marker,
      });
      return id === undefined ? undefined : { id, note: 'found by its marker after an unknown outcome' };
    }
    const options = {
      ...(this.#settleSignal === undefined ? {} : { signal: this.#settleSignal }),
      kind: action.kind,
    };
    if (request.method === 'DELETE') {
      const gone = await objectIsGone(this.#api, request.path, options);
      return gone ? { note: 'found gone after an unknown outcome' } : undefined;
    }
    const landed = await moduleWriteLanded(
      this.#api,
      this.#moduleReadRequest(action, request),
      request.body,
      options,
    );
    return landed ? { note: 'read back after an unknown outcome' } : undefined;
  }

  #send<T>(action: Action, request: ApiRequest): Promise<ApiResponse<T>> {
    return this.#api.request<T>(request, {
      ...(this.#signal === undefined ? {} : { signal: this.#signal }),
      ...(this.#stopBeforeSending === undefined ? {} : { stopBeforeSending: this.#stopBeforeSending }),
      kind: action.kind,
    });
  }
}

/**
 * The service answered a write of an empty list with the old items: it
 * reads `[]` as "not sent", and no request of the spec clears the list.
 * Not retried: the same write would be ignored again.
 */
function emptyListIgnored(request: ApiRequest, fields: readonly string[]): EdgesyncError {
  const named = fields.join(', ');
  return new EdgesyncError(
    'unexpected_response',
    `${request.method} ${request.path} sent ${named} as an empty list, and the service's answer still holds the old items: this service ignores an empty list, so edgesync cannot clear ${named}; keep at least one item, or clear it in the service's console`,
  );
}

const NOT_SENT = 'not sent: the apply was interrupted first';
const NOT_LANDED = 'sent, but it did not land; not sent again because the apply was interrupted';

/**
 * Whether a GET of the object answers 404, or 200 with null (a service may
 * answer an unset module either way): a DELETE whose outcome was unknown landed.
 */
async function objectIsGone(
  api: EdgeApi,
  path: string,
  options: { readonly signal?: AbortSignal; readonly kind: string },
): Promise<boolean> {
  try {
    const response = await api.request({ method: 'GET', path }, options);
    return response.body === null;
  } catch (error) {
    if (isAlreadyAbsent(error)) return true;
    throw error;
  }
}
