import { pointersToValues } from '../json-pointer.js';
import type { AddressRange } from '../kinds/kind.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import type { SourceLocation } from '../manifest/source-location.js';
import type { Action, ResourceChange } from './plan.js';

/**
 * An action while the plan is being drafted: it still carries the facts the
 * ordering rules need (which object it touches, which uniqueness key it takes
 * or frees, allow or deny) and a mutable set of dependencies.
 */
export interface DraftAction extends Omit<Action, 'dependsOn'> {
  readonly dependsOn: Dependencies;
  /** The live object this action changes; absent for creates. */
  readonly objectId?: string;
  /** Uniqueness-key value this action takes (creates, updates) or frees (deletes), prefixed by kind. */
  readonly takes?: string;
  readonly frees?: string;
  /** allow or deny, for kinds with an access decision. */
  readonly access?: 'allow' | 'deny';
  /** The addresses an access rule covers; absent when unknown, and then it overlaps every rule. */
  readonly range?: AddressRange;
  /** For an update that moves an access rule: the range it leaves (`range` is where it arrives). */
  readonly movedFrom?: AddressRange;
  /**
   * The key of the PATCH that parked this rule (see park-moves.ts): this one
   * moves it on, so what it narrows (the spot) undoes what that one widened,
   * and it is not waited for by it.
   */
  readonly unparks?: string;
  /**
   * The key of the create of a temporary deny that covers where this deny
   * rule moves (see park-moves.ts): that one narrows the target early, so
   * this move only widens, and belongs to the late phase.
   */
  readonly guardedBy?: string;
}

const NO_KEYS: ReadonlySet<string> = new Set();

/**
 * The keys of the actions one action waits for, as a Set. Most actions wait
 * for nothing: the Set is made on the first add, since an empty one costs
 * about 300 bytes and a plan drafts one per action (issue 18).
 */
export class Dependencies implements Iterable<string> {
  #keys: Set<string> | undefined;

  get size(): number {
    return this.#keys?.size ?? 0;
  }

  has(key: string): boolean {
    return this.#keys?.has(key) ?? false;
  }

  add(key: string): this {
    this.#keys ??= new Set();
    this.#keys.add(key);
    return this;
  }

  delete(key: string): boolean {
    return this.#keys?.delete(key) ?? false;
  }

  clear(): void {
    this.#keys = undefined;
  }

  [Symbol.iterator](): IterableIterator<string> {
    return (this.#keys ?? NO_KEYS).values();
  }
}

/** A ResourceChange while drafting; `protect` comes from its entry and feeds the safety rules. */
export interface DraftChange {
  readonly change: Omit<ResourceChange, 'actionKeys'>;
  readonly actionKeys: string[];
  readonly protect: boolean;
}

/** A DraftAction with no dependencies yet, whose secret values are located in the request body. */
export function draftAction(
  parts: Omit<DraftAction, 'dependsOn' | 'sensitivePaths' | 'source'> & {
    readonly secrets: ReadonlySet<string>;
    readonly source?: SourceLocation | undefined;
  },
): DraftAction {
  const { secrets, source, ...rest } = parts;
  // Object.assign onto a fresh literal, not `{ ...rest, source, … }`: on Node 20 every object built
  // by a spread followed by more properties got a hidden class of its own, about 340 bytes per
  // action held until the plan was assembled (issue 18). Same properties, same order.
  return Object.assign({}, rest, source ? { source } : {}, {
    sensitivePaths: pointersToValues(parts.request.body, secrets),
    dependsOn: new Dependencies(),
  });
}

/** The plan's Action: drafting facts dropped, dependencies on left-out actions removed and sorted. */
export function toAction(draft: DraftAction, keys: ReadonlySet<string>): Action {
  return {
    key: draft.key,
    op: draft.op,
    kind: draft.kind,
    name: draft.name,
    change: draft.change,
    request: draft.request,
    sensitivePaths: draft.sensitivePaths,
    ...(draft.marker ? { marker: draft.marker } : {}),
    dependsOn: keptDependencies(draft.dependsOn, keys),
    ...(draft.source ? { source: draft.source } : {}),
  };
}

/** Sorted; a list of its own length when nothing is left out (a filtered copy holds 17 slots, kept per action). */
function keptDependencies(dependsOn: Dependencies, keys: ReadonlySet<string>): string[] {
  const kept = [...dependsOn];
  return (kept.every((key) => keys.has(key)) ? kept : kept.filter((key) => keys.has(key))).sort();
}

/** The manifest place of a field of an entry (a JSON Pointer into its spec), or of the entry itself. */
export function sourceOf(entry: DesiredEntry, pointer: string): SourceLocation {
  return entry.fieldLocations[pointer] ?? entry.location;
}
