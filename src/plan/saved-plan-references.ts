import type { LiveObject, LiveState } from '../kinds/live-state.js';
import type { Action } from './plan.js';

/**
 * The live account as a saved plan's actions are judged against it: objects
 * by ID and by ownership marker, each index made the first time it is asked
 * for (a plan of 100,000 creates asks for neither).
 */
export class LiveLookup {
  readonly #live: LiveState;
  #byId: Map<string, LiveObject> | undefined;
  #byMarker: Map<string, LiveObject[]> | undefined;

  constructor(live: LiveState) {
    this.#live = live;
  }

  /** Every page of every list was read: an object not found is not there. */
  get complete(): boolean {
    return this.#live.complete;
  }

  byId(id: string): LiveObject | undefined {
    if (this.#byId === undefined) {
      this.#byId = new Map();
      for (const object of this.#objects()) this.#byId.set(object.id, object);
    }
    return this.#byId.get(id);
  }

  /** The objects of `kind` that carry this marker (more than one is a duplicate). */
  byMarker(kind: string, owner: string, name: string): readonly LiveObject[] {
    if (this.#byMarker === undefined) {
      this.#byMarker = new Map();
      for (const object of this.#objects()) {
        if (object.marker === null) continue;
        const key = markerKey(object.kind, object.marker.owner, object.marker.name);
        const same = this.#byMarker.get(key);
        if (same === undefined) this.#byMarker.set(key, [object]);
        else same.push(object);
      }
    }
    return this.#byMarker.get(markerKey(kind, owner, name)) ?? [];
  }

  *#objects(): Generator<LiveObject> {
    for (const objects of Object.values(this.#live.objects)) if (objects !== undefined) yield* objects;
  }
}

function markerKey(kind: string, owner: string, name: string): string {
  return JSON.stringify([kind, owner, name]);
}

/** What a pending ID of a saved action stands for now. */
export type ReferenceNow =
  /** A create of the plan made now, still to be sent: compared by its key. */
  | { readonly pending: string }
  /** The object that create made, found live by its marker. */
  | { readonly id: string }
  /** Neither: the create is not in the saved plan, or its object is not (or more than once) in the account. */
  | { readonly unresolved: string };

/**
 * The creates of a saved plan that the plan made now does not send (their
 * objects may already be live), by key, so that a later saved action's
 * pending ID (`{"$createdBy": key}`, a `{key}` path segment) can be resolved
 * by the create's marker to the object it made.
 */
export class SavedCreates {
  readonly #creates = new Map<string, Pick<Action, 'kind' | 'marker'>>();
  readonly #live: LiveLookup;

  constructor(live: LiveLookup) {
    this.#live = live;
  }

  remember(action: Action): void {
    if (action.request.method === 'POST')
      this.#creates.set(action.key, { kind: action.kind, marker: action.marker });
  }

  /** The live object the saved create `key` made, when exactly one carries its marker. */
  objectOf(key: string): LiveObject | undefined {
    const create = this.#creates.get(key);
    if (create?.marker === undefined) return undefined;
    const found = this.#live.byMarker(create.kind, create.marker.owner, create.marker.name);
    return found.length === 1 ? found[0] : undefined;
  }

  resolve(key: string): ReferenceNow {
    const object = this.objectOf(key);
    return object === undefined ? { unresolved: key } : { id: object.id };
  }
}
