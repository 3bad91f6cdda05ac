import type { EdgeApi } from '../api/edge-api.js';
import { parseMetadata } from '../kinds/ownership-marker.js';

/** What an outcome-unknown create is looked up by. */
export interface MarkerQuery {
  /** The create's own path, which is also the list of its kind (`/ip_policy_rules`). */
  readonly path: string;
  /** The kind's name, which is the list's key in the response (`ip_policy_rules`). */
  readonly kind: string;
  readonly marker: { readonly owner: string; readonly name: string };
}

export interface MarkerLookupOptions {
  readonly api: EdgeApi;
  /**
   * IDs that existed when the plan was made: never an answer, because a
   * replace's old object carries the same marker as its new one.
   */
  readonly preexistingIds: ReadonlySet<string>;
  /** Aborts the listings, which fails the lookups they serve. */
  readonly signal?: AbortSignal;
}

/** Counters since the lookup service was made. */
export interface MarkerLookupStats {
  readonly lookups: number;
  readonly listings: number;
  readonly pages: number;
}

interface Waiter {
  readonly resolve: (id: string | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/** One listing of one collection and the lookups it answers. */
interface Round {
  /** Waiters by marker key; several waiters for one marker all get its answer. */
  readonly waiters: Map<string, Waiter[]>;
}

interface Collection {
  readonly query: MarkerQuery;
  running: Round | undefined;
  /** The round new lookups join; it starts once no listing runs. */
  next: Round | undefined;
  /** Whether `next` is due to start at the next turn of the event loop. */
  scheduled: boolean;
}

/**
 * Finds the objects that outcome-unknown creates may have made, with as few
 * list requests as possible: a listing of the whole collection costs a page
 * per 100 objects, and under faults many creates of one apply need a lookup.
 *
 * Lookups of one collection share listings. A lookup made while no listing
 * of its collection runs starts one (at the next turn of the event loop, so
 * that lookups asked for together share it); a lookup made while one runs
 * waits for the next, which starts when the running one ends and serves
 * every lookup that arrived meanwhile. The running listing may not serve it: it may have
 * read the page where the object would be before the create landed. Lists
 * are newest first, so a listing stops at the first page after which every
 * marker it serves is found; a marker not found by the last page is not
 * there. A failed listing fails every lookup it serves.
 */
export class MarkerLookup {
  readonly #api: EdgeApi;
  readonly #preexistingIds: ReadonlySet<string>;
  readonly #signal: AbortSignal | undefined;
  readonly #collections = new Map<string, Collection>();
  #lookups = 0;
  #listings = 0;
  #pages = 0;

  constructor(options: MarkerLookupOptions) {
    this.#api = options.api;
    this.#preexistingIds = options.preexistingIds;
    this.#signal = options.signal;
  }

  /**
   * The ID of the newest object of the query's collection that carries its
   * marker and did not exist when the plan was made; undefined when there is
   * none.
   */
  find(query: MarkerQuery): Promise<string | undefined> {
    this.#lookups += 1;
    const collectionKey = `${query.kind} ${query.path}`;
    let collection = this.#collections.get(collectionKey);
    if (collection === undefined) {
      collection = { query, running: undefined, next: undefined, scheduled: false };
      this.#collections.set(collectionKey, collection);
    }
    collection.next ??= { waiters: new Map() };
    const waiters = collection.next.waiters;
    const answer = new Promise<string | undefined>((resolve, reject) => {
      const key = markerKey(query.marker);
      waiters.set(key, [...(waiters.get(key) ?? []), { resolve, reject }]);
    });
    if (collection.running === undefined) this.#schedule(collection);
    return answer;
  }

  stats(): MarkerLookupStats {
    return { lookups: this.#lookups, listings: this.#listings, pages: this.#pages };
  }

  /** Starts the next listing one turn later, so that lookups asked for together share it. */
  #schedule(collection: Collection): void {
    if (collection.scheduled) return;
    collection.scheduled = true;
    setImmediate(() => {
      collection.scheduled = false;
      const round = collection.next;
      if (round === undefined) return;
      collection.next = undefined;
      collection.running = round;
      this.#listings += 1;
      void this.#list(round, collection.query).finally(() => {
        collection.running = undefined;
        if (collection.next !== undefined) this.#schedule(collection);
      });
    });
  }

  async #list(round: Round, query: MarkerQuery): Promise<void> {
    const { waiters } = round;
    try {
      const options = { kind: query.kind, ...(this.#signal ? { signal: this.#signal } : {}) };
      for await (const page of this.#api.paginate<{ id?: unknown; metadata?: unknown }>(
        query.path,
        query.kind,
        options,
      )) {
        this.#pages += 1;
        for (const item of page.items) {
          if (typeof item.id !== 'string' || this.#preexistingIds.has(item.id)) continue;
          const marker = parseMetadata(typeof item.metadata === 'string' ? item.metadata : undefined).marker;
          if (marker === null) continue;
          const key = markerKey(marker);
          // The first match is the newest: the list is newest first.
          for (const waiter of waiters.get(key) ?? []) waiter.resolve(item.id);
          waiters.delete(key);
        }
        if (waiters.size === 0) return;
      }
      for (const list of waiters.values()) for (const waiter of list) waiter.resolve(undefined);
    } catch (error) {
      for (const list of waiters.values()) for (const waiter of list) waiter.reject(error);
    }
  }
}

function markerKey(marker: { readonly owner: string; readonly name: string }): string {
  return JSON.stringify([marker.owner, marker.name]);
}
