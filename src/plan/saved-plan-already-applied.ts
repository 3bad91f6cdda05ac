import type { ApiRequest } from '../api/edge-api.js';
import { canonicalJson } from '../canonical-json.js';
import { pointerToken } from '../json-pointer.js';
import { isRecord } from '../json-value.js';
import type { Kind, ModuleTarget } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import { encodeMetadata } from '../kinds/ownership-marker.js';
import { isPendingId } from './pending-id.js';
import type { Action } from './plan.js';
import { isSensitiveHash } from './saved-plan.js';
import type { LiveLookup, SavedCreates } from './saved-plan-references.js';
import { METADATA_FIELD } from './spec-fields.js';

export interface AlreadyAppliedContext {
  readonly live: LiveLookup;
  readonly creates: SavedCreates;
  readonly kinds: ReadonlyMap<string, Kind>;
  /** Whether a saved secret's digest (`saved`) is of `value` at that place (secret-digest.ts). */
  readonly secretHolds: (
    place: { readonly kind: string; readonly name: string; readonly path: string },
    saved: string,
    value: string,
  ) => boolean;
}

/** Where a value stands in a saved action's body: its entry and the pointer, for a secret's digest. */
interface BodyPlace {
  readonly kind: string;
  readonly name: string;
  readonly path: string;
}

/**
 * The keys of the saved actions whose effect the account already holds: the
 * daemon, or an earlier run of the same plan, applied them. `actions` are
 * the saved actions the plan made now does not confirm, in the file's order.
 *
 * An action holds when its object already has what it writes: the fields
 * of a POST or a PATCH, the module of a PUT, the absence a DELETE makes. The
 * account is compared with the requests that would write what it holds now,
 * made by the object's kind from the live object (its create, an update of
 * every updatable field, a write of each module), so no kind is named here.
 *
 * A plan may write one object more than once: a rule parked on a spot and
 * then moved on, a temporary deny rule created and then deleted. Only the
 * last write of each field (or module, or the object's delete) must hold;
 * an earlier one that a later write of the same object overrides holds with it.
 */
export function alreadyApplied(actions: readonly Action[], context: AlreadyAppliedContext): Set<string> {
  const held = new Set<string>();
  const targets = new Map<string, { deleted: boolean; readonly covered: Set<string> }>();
  const writes = new WriteReader(context);
  for (let at = actions.length - 1; at >= 0; at -= 1) {
    const action = actions[at] as Action;
    const write = writes.of(action);
    let target = targets.get(write.target);
    if (target === undefined) {
      target = { deleted: false, covered: new Set() };
      targets.set(write.target, target);
    }
    if (target.deleted) {
      held.add(action.key);
      continue;
    }
    if (write.deletesObject) {
      if (write.holds(write.keys)) {
        target.deleted = true;
        held.add(action.key);
      }
      continue;
    }
    const covered = target.covered;
    const open = write.keys.filter((key) => !covered.has(key));
    if (open.length === 0 || write.holds(open)) {
      held.add(action.key);
      for (const key of write.keys) covered.add(key);
    }
  }
  return held;
}

/** What one saved action writes, and whether the account holds it. */
interface Write {
  /** The object written: `id:ID` for a live one, `new:KEY` for the object of a create not live now, else `path:PATH`. */
  readonly target: string;
  /** What it writes: `field:NAME` of a POST or PATCH body, `module:PATH`, or `object` for a delete. */
  readonly keys: readonly string[];
  readonly deletesObject: boolean;
  /** Whether the account holds these of its keys. */
  holds(keys: readonly string[]): boolean;
}

/** Marks, in the requests made from a live object, a DELETE whose target is there (`present`) or not (`absent`). */
const PRESENT = Symbol('present');
const ABSENT = Symbol('absent');

class WriteReader {
  readonly #context: AlreadyAppliedContext;
  readonly #requests = new Map<string, Map<string, unknown>>();

  constructor(context: AlreadyAppliedContext) {
    this.#context = context;
  }

  of(action: Action): Write {
    const request = action.request;
    if (request.method === 'POST') return this.#create(action, request);
    const { path, unresolved } = this.#resolvedPath(request.path);
    if (unresolved !== undefined) {
      // The object of a create that is not live now: only its delete holds.
      const kind = this.#context.kinds.get(action.kind);
      const deletesObject =
        request.method === 'DELETE' && kind?.deleteRequest(`{${unresolved}}`).path === request.path;
      return {
        target: `new:${unresolved}`,
        keys: deletesObject ? ['object'] : [`request:${request.method} ${request.path}`],
        deletesObject,
        holds: () => deletesObject,
      };
    }
    const object = this.#objectIn(path);
    const kind = this.#context.kinds.get(object?.kind ?? action.kind);
    if (kind === undefined) return nothingHolds(`path:${path}`, request);
    if (object === undefined) return this.#absent(kind, request, path);
    const made = this.#requestsOf(kind, object);
    const key = `${request.method} ${path}`;
    const target = `id:${object.id}`;
    if (request.method === 'DELETE') {
      const deletesObject = kind.ownership === 'metadata' && kind.deleteRequest(object.id).path === path;
      if (deletesObject) return { target, keys: ['object'], deletesObject, holds: () => false };
      return { target, keys: [`module:${path}`], deletesObject, holds: () => made.get(key) === ABSENT };
    }
    if (request.method === 'PUT') {
      return {
        target,
        keys: [`module:${path}`],
        deletesObject: false,
        holds: () => made.has(key) && this.#holds(request.body, made.get(key), placeIn(action, '')),
      };
    }
    const body = isRecord(request.body) ? request.body : {};
    const written = made.get(key);
    return {
      target,
      keys: Object.keys(body).map((field) => `field:${field}`),
      deletesObject: false,
      holds: (keys) =>
        isRecord(written) && keys.every((field) => this.#holdsField(body, written, field, action)),
    };
  }

  /** A POST: its object is the one live with the create's marker. */
  #create(action: Action, request: ApiRequest): Write {
    const object = this.#context.creates.objectOf(action.key);
    const body = isRecord(request.body) ? request.body : {};
    const keys = Object.keys(body).map((field) => `field:${field}`);
    if (object === undefined)
      return { target: `new:${action.key}`, keys, deletesObject: false, holds: () => false };
    const kind = this.#context.kinds.get(object.kind);
    const made = kind?.createRequest(object.spec, metadataOf(object));
    return {
      target: `id:${object.id}`,
      keys,
      deletesObject: false,
      holds: (open) =>
        made !== undefined &&
        made.path === request.path &&
        isRecord(made.body) &&
        open.every((field) => this.#holdsField(body, made.body as Record<string, unknown>, field, action)),
    };
  }

  /** A request on an object that is not in the account: only its delete holds, once the account was read whole. */
  #absent(kind: Kind, request: ApiRequest, path: string): Write {
    const id = path.slice(path.lastIndexOf('/') + 1);
    const deletesObject =
      request.method === 'DELETE' &&
      kind.ownership === 'metadata' &&
      id.startsWith(kind.idPrefix) &&
      kind.deleteRequest(id).path === path;
    if (!deletesObject) return nothingHolds(`path:${path}`, request);
    const complete = this.#context.live.complete;
    return { target: `path:${path}`, keys: ['object'], deletesObject, holds: () => complete };
  }

  /** `path` with each pending segment replaced by the ID of the object its create made; the first that has none. */
  #resolvedPath(path: string): { path: string; unresolved?: string } {
    if (!path.includes('{')) return { path };
    let unresolved: string | undefined;
    const resolved = path.replace(/\{([^{}]+)\}/g, (segment, key: string) => {
      const object = this.#context.creates.objectOf(key);
      if (object !== undefined) return object.id;
      unresolved ??= key;
      return segment;
    });
    return unresolved === undefined ? { path: resolved } : { path: resolved, unresolved };
  }

  /** The first live object whose ID is a segment of `path`. */
  #objectIn(path: string): LiveObject | undefined {
    for (const segment of path.split('/')) {
      if (segment === '') continue;
      const object = this.#context.live.byId(segment);
      if (object !== undefined) return object;
    }
    return undefined;
  }

  /**
   * The requests that would write what `object` holds now, by `METHOD path`:
   * PATCH bodies (the update of every updatable field and the modules a
   * PATCH writes, merged), PUT bodies, and for each DELETE whether its target
   * is there. Made once per object.
   */
  #requestsOf(kind: Kind, object: LiveObject): Map<string, unknown> {
    const cached = this.#requests.get(object.id);
    if (cached !== undefined) return cached;
    const made = new Map<string, unknown>();
    const add = (request: ApiRequest): void => {
      const key = `${request.method} ${request.path}`;
      if (request.method !== 'PATCH') made.set(key, request.body);
      else
        made.set(key, { ...(made.get(key) as Record<string, unknown> | undefined), ...asBody(request.body) });
    };
    if (kind.ownership === 'metadata') {
      const changed: Record<string, unknown> = {};
      for (const rule of kind.fields) {
        if (rule.onChange !== 'update') continue;
        changed[rule.name] = rule.name === METADATA_FIELD ? metadataOf(object) : object.spec[rule.name];
      }
      add(kind.updateRequest(object.id, changed));
      made.set(`DELETE ${kind.deleteRequest(object.id).path}`, PRESENT);
      // A field cleared by a request of its own (a detach): that DELETE holds when the field is unset.
      for (const rule of kind.fields) {
        const clear = kind.clearRequest?.(object.id, rule.name);
        if (clear !== undefined)
          made.set(`${clear.method} ${clear.path}`, object.spec[rule.name] === undefined ? ABSENT : PRESENT);
      }
    }
    for (const [target, module, value] of moduleValues(kind, object)) {
      try {
        const removal = kind.moduleRequest(target, module, null);
        made.set(`DELETE ${removal.path}`, value === null ? ABSENT : PRESENT);
        if (value !== null) add(kind.moduleRequest(target, module, value));
      } catch {
        // A module the kind cannot write (a route without an ID): no request writes it.
      }
    }
    this.#requests.set(object.id, made);
    return made;
  }

  #holdsField(
    saved: Record<string, unknown>,
    made: Record<string, unknown>,
    key: string,
    action: Action,
  ): boolean {
    const field = key.slice('field:'.length);
    return (
      Object.hasOwn(made, field) &&
      this.#holds(saved[field], made[field], placeIn(action, `/${pointerToken(field)}`))
    );
  }

  /**
   * Whether a saved value is what the account holds: a secret by the hash the
   * file holds, a pending ID by the object its create made, a list of plain
   * values as a set (the service keeps them as sets: hostports, scopes, IDs).
   */
  #holds(saved: unknown, made: unknown, at: BodyPlace): boolean {
    if (isSensitiveHash(saved))
      return typeof made === 'string' && this.#context.secretHolds(at, saved.$sensitive, made);
    if (isPendingId(saved)) return made === this.#context.creates.objectOf(saved.$createdBy)?.id;
    if (Array.isArray(saved)) {
      if (!Array.isArray(made)) return false;
      const items = saved.map((item) =>
        isPendingId(item) ? (this.#context.creates.objectOf(item.$createdBy)?.id ?? item) : item,
      );
      if (items.every(isPlain) && made.every(isPlain)) return sameSet(items, made);
      return (
        items.length === made.length &&
        items.every((item, index) => this.#holds(item, made[index], deeper(at, index)))
      );
    }
    if (isRecord(saved)) {
      if (!isRecord(made)) return false;
      const keys = Object.keys(saved);
      return (
        keys.length === Object.keys(made).length &&
        keys.every((key) => Object.hasOwn(made, key) && this.#holds(saved[key], made[key], deeper(at, key)))
      );
    }
    return saved === made;
  }
}

function nothingHolds(target: string, request: ApiRequest): Write {
  return {
    target,
    keys: [`request:${request.method} ${request.path}`],
    deletesObject: false,
    holds: () => false,
  };
}

/** Each module of the object with where it is written and its value now (null when unset). */
function* moduleValues(
  kind: Kind,
  object: LiveObject,
): Generator<[ModuleTarget, string, Readonly<Record<string, unknown>> | null]> {
  for (const module of kind.modules) {
    if (module.scope === 'resource') {
      yield [{ id: object.id }, module.name, moduleValue(object.spec[module.name])];
      continue;
    }
    const routes = Array.isArray(object.spec.routes) ? object.spec.routes : [];
    for (const route of routes) {
      if (!isRecord(route) || typeof route.id !== 'string') continue;
      yield [{ id: object.id, routeId: route.id }, module.name, moduleValue(route[module.name])];
    }
  }
}

function moduleValue(value: unknown): Readonly<Record<string, unknown>> | null {
  return isRecord(value) ? value : null;
}

/** The object's metadata as edgesync would write it: the user's part and its marker. */
function metadataOf(object: LiveObject): string {
  const user = object.spec[METADATA_FIELD];
  if (object.marker !== null) return encodeMetadata(isRecord(user) ? user : undefined, object.marker);
  if (user === undefined) return '';
  return typeof user === 'string' ? user : canonicalJson(user);
}

function asBody(body: unknown): Record<string, unknown> {
  return isRecord(body) ? body : {};
}

function isPlain(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

function sameSet(a: readonly unknown[], b: readonly unknown[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
}

function placeIn(action: Action, path: string): BodyPlace {
  return { kind: action.kind, name: action.name, path };
}

function deeper(at: BodyPlace, key: string | number): BodyPlace {
  return { ...at, path: `${at.path}/${pointerToken(key)}` };
}
