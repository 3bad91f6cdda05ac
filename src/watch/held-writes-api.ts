import type {
  ApiRequest,
  ApiResponse,
  EdgeApi,
  ListPage,
  PaginateOptions,
  RequestOptions,
  RequestStats,
} from '../api/edge-api.js';
import { EdgesyncError } from '../errors.js';

/**
 * The apply stage's API while a suspension may begin mid-run: each write
 * asks `held` as it is about to go, and one asked while the daemon is
 * suspended is not sent (the action fails with `daemon_suspended`, and the
 * next run, suspended, plans and reports). Reads pass: a suspended daemon
 * still reads.
 */
export class HeldWritesApi implements EdgeApi {
  readonly #api: EdgeApi;
  readonly #held: () => boolean;

  constructor(api: EdgeApi, held: () => boolean) {
    this.#api = api;
    this.#held = held;
  }

  request<T = unknown>(request: ApiRequest, options?: RequestOptions): Promise<ApiResponse<T>> {
    if (request.method !== 'GET' && this.#held()) {
      return Promise.reject(
        new EdgesyncError(
          'daemon_suspended',
          `${request.method} ${request.path} not sent: the daemon was suspended while it applied`,
        ),
      );
    }
    return this.#api.request<T>(request, options);
  }

  paginate<T = unknown>(
    path: string,
    listKey: string,
    options?: PaginateOptions,
  ): AsyncIterable<ListPage<T>> {
    return this.#api.paginate<T>(path, listKey, options);
  }

  stats(): RequestStats {
    return this.#api.stats();
  }
}
