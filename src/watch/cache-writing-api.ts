import { ApiError } from '../api/api-error.js';
import type {
  ApiRequest,
  ApiResponse,
  EdgeApi,
  ListPage,
  PaginateOptions,
  RequestOptions,
  RequestStats,
} from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';

/**
 * Whether a write's error may mean the cache was wrong about the kind: the
 * object is gone (404), or the service refused the write for a state the
 * cache did not show (a unique key taken behind the daemon's back). The spec
 * defines no error codes, so any refusal of the request itself counts
 * (4xx but the key's 401/403 and the budget's 429): the cost of a wrong guess
 * is one full read of the kind.
 */
function isSurprise(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![401, 403, 429].includes(error.status)
  );
}

/** A write that met a surprise, as the reconciler reports it. */
export interface CacheSurprise {
  readonly kind: KindName;
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

/** Who hears of each write of a kind and its answer: the cache's writer. */
export interface WriteObserver {
  /** The service answered a write with `body` (a whole object, a module, or nothing for a DELETE). */
  written(kind: Kind, request: ApiRequest, body: unknown): void;
  /** The service refused a write in a way that says the cache may be wrong about `surprise.kind`. */
  surprised(surprise: CacheSurprise): void;
}

/**
 * The API as the executor sees it in the daemon: every write of a kind is
 * reported with its answer, or with its surprise, to the observer (the
 * cache's one writer, which decides what the answer means for the cache).
 * Reads, and requests of no kind of the registry, pass through untouched.
 */
export class CacheWritingApi implements EdgeApi {
  readonly #api: EdgeApi;
  readonly #kindOf: (name: string) => Kind | undefined;
  readonly #observer: WriteObserver;

  constructor(api: EdgeApi, kindOf: (name: string) => Kind | undefined, observer: WriteObserver) {
    this.#api = api;
    this.#kindOf = kindOf;
    this.#observer = observer;
  }

  async request<T = unknown>(request: ApiRequest, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const kind = options.kind === undefined ? undefined : this.#kindOf(options.kind);
    if (request.method === 'GET' || kind === undefined) return this.#api.request<T>(request, options);
    let response: ApiResponse<T>;
    try {
      response = await this.#api.request<T>(request, options);
    } catch (error) {
      if (isSurprise(error)) {
        this.#observer.surprised({
          kind: kind.name,
          method: request.method,
          path: request.path,
          status: error.status,
        });
      }
      throw error;
    }
    this.#observer.written(kind, request, response.body);
    return response;
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
