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
import { isKindName, type KindName } from '../kinds/kind-name.js';
import { kindByName } from '../kinds/registry.js';
import type { LiveStateCache } from './live-state-cache.js';

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

/**
 * The API as the executor sees it in the daemon: every write's response goes
 * into the cache (a POST or PATCH answers with the whole object, a DELETE
 * removes it; a module write marks its edge to be read again), and a write
 * that meets a surprise drops the cache of its kind, so the next plan of that
 * kind starts from a full read. Reads pass through untouched.
 */
export class CacheWritingApi implements EdgeApi {
  readonly #api: EdgeApi;
  readonly #cache: LiveStateCache;
  readonly #onSurprise: (surprise: CacheSurprise) => void;

  constructor(api: EdgeApi, cache: LiveStateCache, onSurprise: (surprise: CacheSurprise) => void) {
    this.#api = api;
    this.#cache = cache;
    this.#onSurprise = onSurprise;
  }

  async request<T = unknown>(request: ApiRequest, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const kind =
      options.kind !== undefined && isKindName(options.kind) ? kindByName(options.kind) : undefined;
    if (request.method === 'GET' || kind === undefined) return this.#api.request<T>(request, options);
    let response: ApiResponse<T>;
    try {
      response = await this.#api.request<T>(request, options);
    } catch (error) {
      if (isSurprise(error)) {
        this.#cache.drop(kind.name);
        this.#onSurprise({
          kind: kind.name,
          method: request.method,
          path: request.path,
          status: error.status,
        });
      }
      throw error;
    }
    this.#takeIn(kind, request, response.body);
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

  #takeIn(kind: Kind, request: ApiRequest, body: unknown): void {
    const id = idIn(kind, request.path) ?? idOf(body);
    if (id === undefined) return;
    const ownPath = kind.ownership === 'metadata' ? kind.deleteRequest(id).path : undefined;
    if (request.method === 'DELETE' && request.path === ownPath) {
      this.#cache.remove(kind.name, id);
      return;
    }
    const wholeObject =
      (request.method === 'POST' && idIn(kind, request.path) === undefined) ||
      (request.method === 'PATCH' && request.path === ownPath);
    if (wholeObject && idOf(body) === id) {
      try {
        this.#cache.put(kind.fromApi(body));
        return;
      } catch {
        // Not the shape a list returns: read it back instead of guessing.
      }
    }
    this.#cache.markStale(kind.name, id);
  }
}

/** The ID of `kind` a request path names (`/edges/tcp/edgtcp_…/ip_restriction` → `edgtcp_…`). */
function idIn(kind: Kind, path: string): string | undefined {
  return path.split('/').find((segment) => segment.startsWith(kind.idPrefix));
}

function idOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const id = (body as { readonly id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}
