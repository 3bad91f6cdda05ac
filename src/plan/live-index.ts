import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { newestFirst } from '../kinds/live-object.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';

/**
 * The live objects marked with one name: the object itself when it is the
 * only one, as nearly every name is (a list of one per name was ~5.6 MB held
 * through planning 100,000 entries); newest first otherwise.
 */
export type MarkedObjects = LiveObject | readonly LiveObject[];

export function isObjectList(marked: MarkedObjects): marked is readonly LiveObject[] {
  return Array.isArray(marked);
}

/** The objects marked with one name, as a list (none when `marked` is undefined). */
export function copiesOf(marked: MarkedObjects | undefined): readonly LiveObject[] {
  if (marked === undefined) return [];
  return isObjectList(marked) ? marked : [marked];
}

/** Calls `visit` with every object marked with any name of `byName`, without a list per name. */
export function forEachMarked(
  byName: ReadonlyMap<string, MarkedObjects>,
  visit: (object: LiveObject) => void,
): void {
  for (const marked of byName.values()) {
    if (!isObjectList(marked)) visit(marked);
    else for (let at = 0; at < marked.length; at += 1) visit(marked[at] as LiveObject);
  }
}

/**
 * The live objects of the planned kinds, by ID. A kind is indexed the first
 * time an ID with its prefix is looked up: planning 100,000 rules looks up
 * their policies' IDs, not theirs, and a map of every object was ~4 MB held
 * through planning, and as much garbage while it grew. An ID not
 * found under its prefix's kind is looked up among every object.
 */
export class LiveById {
  readonly #live: LiveState;
  readonly #kinds: readonly Kind[];
  readonly #byKind = new Map<KindName, Map<string, LiveObject>>();
  #all: Map<string, LiveObject> | undefined;

  constructor(live: LiveState, kinds: readonly Kind[]) {
    this.#live = live;
    this.#kinds = kinds;
  }

  get(id: string): LiveObject | undefined {
    const kind = this.#kinds.find((candidate) => id.startsWith(candidate.idPrefix));
    const found = kind === undefined ? undefined : this.#ofKind(kind.name).get(id);
    if (found !== undefined) return found;
    this.#all ??= this.#index(this.#kinds);
    return this.#all.get(id);
  }

  /** Every object, kind by kind in the order the kinds were given. */
  *values(): Generator<LiveObject> {
    for (const kind of this.#kinds) yield* this.#live.objects[kind.name] ?? [];
  }

  #ofKind(name: KindName): Map<string, LiveObject> {
    let byId = this.#byKind.get(name);
    if (byId === undefined) {
      byId = this.#index(this.#kinds.filter((kind) => kind.name === name));
      this.#byKind.set(name, byId);
    }
    return byId;
  }

  #index(kinds: readonly Kind[]): Map<string, LiveObject> {
    const byId = new Map<string, LiveObject>();
    for (const kind of kinds)
      for (const object of this.#live.objects[kind.name] ?? []) byId.set(object.id, object);
    return byId;
  }
}

/** Objects marked with one owner, by kind and then by the name in their marker. */
export type MarkedByKindAndName = ReadonlyMap<KindName, ReadonlyMap<string, MarkedObjects>>;

/** Live objects by ID, and those marked with `owner` by kind and name (newest first). */
export function indexLive(
  live: LiveState,
  owner: string,
  kinds: readonly Kind[],
): { liveById: LiveById; managed: MarkedByKindAndName } {
  return { liveById: new LiveById(live, kinds), managed: markedByKindAndName(live, owner, kinds) };
}

function markedByKindAndName(live: LiveState, owner: string, kinds: readonly Kind[]): MarkedByKindAndName {
  const managed = new Map<KindName, Map<string, MarkedObjects>>();
  const lists: LiveObject[][] = [];
  for (const kind of kinds) {
    for (const object of live.objects[kind.name] ?? []) {
      if (object.marker?.owner !== owner) continue;
      if (kind.ownership !== 'metadata') continue;
      const byName = managed.get(kind.name) ?? new Map<string, MarkedObjects>();
      managed.set(kind.name, byName);
      const marked = byName.get(object.marker.name);
      if (marked === undefined) byName.set(object.marker.name, object);
      else if (isObjectList(marked)) (marked as LiveObject[]).push(object);
      else {
        const copies = [marked, object];
        lists.push(copies);
        byName.set(object.marker.name, copies);
      }
    }
  }
  // Several objects with one marker happen when an apply stopped between a
  // replacement's create and its delete, or lost a create's answer: the one
  // kept is chosen by `pickCopy`; this order only makes plans deterministic.
  for (const copies of lists) copies.sort(newestFirst);
  return managed;
}
