import { pointersToValues } from '../json-pointer.js';
import type { AddressRange } from '../kinds/kind.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import type { SourceLocation } from '../manifest/source-location.js';
import type { Action, ResourceChange } from './plan.js';

/**
 * An action while the plan is being drafted: it still carries the facts the
 * ordering rules need (which object it touches, which uniqueness key it takes
 * or frees, allow or deny) and a mutable set of dependencies. The same object
 * becomes the plan's Action (toAction): the facts are emptied then.
 */
export interface DraftAction extends Omit<Action, 'dependsOn'> {
  /**
   * The keys of the actions this one waits for; NO_DEPENDENCIES until it
   * waits for one. Changed only by addDependency and deleteDependency, or set
   * whole (to NO_DEPENDENCIES, or to a Set of the action's own).
   */
  dependsOn: ReadonlySet<string>;
  /** The live object this action changes; absent for creates. */
  readonly objectId?: string | undefined;
  /** Uniqueness-key value this action takes (creates, updates) or frees (deletes), prefixed by kind. */
  readonly takes?: string | undefined;
  /**
   * A create's spec, from which its uniqueness-key value is printed when an
   * ordering rule asks (takenKey), instead of `takes`: of 100,000 creates
   * none is asked unless something frees a key, and the printed value was
   * ~85 bytes kept per action (issue 18).
   */
  readonly takenFrom?: Readonly<Record<string, unknown>> | undefined;
  readonly frees?: string | undefined;
  /** allow or deny, for kinds with an access decision. */
  readonly access?: 'allow' | 'deny' | undefined;
  /** The addresses an access rule covers; absent when unknown, and then it overlaps every rule. */
  readonly range?: AddressRange | undefined;
  /** For an update that moves an access rule: the range it leaves (`range` is where it arrives). */
  readonly movedFrom?: AddressRange | undefined;
  /**
   * The key of the PATCH that parked this rule (see park-moves.ts): this one
   * moves it on, so what it narrows (the spot) undoes what that one widened,
   * and it is not waited for by it.
   */
  readonly unparks?: string | undefined;
  /**
   * The key of the create of a temporary deny that covers where this deny
   * rule moves (see park-moves.ts): that one narrows the target early, so
   * this move only widens, and belongs to the late phase.
   */
  readonly guardedBy?: string | undefined;
}

/**
 * The one empty list of every action without secrets or dependencies, most of
 * them: an empty list each was ~32 bytes kept per action (issue 18). Frozen,
 * as it is shared.
 */
export const NONE: readonly string[] = Object.freeze([]);

/**
 * The dependencies of every action that waits for nothing yet, most of them:
 * an action gets a Set of its own on its first dependency (addDependency), as
 * an empty Set costs about 300 bytes, and a holder of a lazy one per action
 * was 3 MB at 100,000 creates (issue 18). Never changed: the functions below
 * replace it instead.
 */
export const NO_DEPENDENCIES: ReadonlySet<string> = new Set();

/** Makes `action` wait for the action with `key`. */
export function addDependency(action: DraftAction, key: string): void {
  if (action.dependsOn === NO_DEPENDENCIES) action.dependsOn = new Set([key]);
  else (action.dependsOn as Set<string>).add(key);
}

/** Makes `action` no longer wait for the action with `key`. */
export function deleteDependency(action: DraftAction, key: string): void {
  if (action.dependsOn !== NO_DEPENDENCIES) (action.dependsOn as Set<string>).delete(key);
}

/**
 * A ResourceChange while drafting: itself, not a wrapper (one per change was
 * ~5 MB at 100,000 creates; issue 18), with the list of its action keys that
 * park-moves.ts edits in place. Whether its entry is protected is in
 * PlanState's `protectedChanges`.
 */
export interface DraftChange extends ResourceChange {
  readonly actionKeys: string[];
}

/** A DraftAction with no dependencies yet, whose secret values are located in the request body. */
export function draftAction(
  parts: Omit<DraftAction, 'dependsOn' | 'sensitivePaths' | 'source'> & {
    readonly secrets: ReadonlySet<string>;
    readonly source?: SourceLocation | undefined;
  },
): DraftAction {
  // One literal with every property, in the plan's order, the drafting facts last: one hidden class
  // for all actions, no out-of-object property store, and the object itself becomes the plan's
  // Action, not a copy of it made while the drafts are still held (issue 18).
  return {
    key: parts.key,
    op: parts.op,
    kind: parts.kind,
    name: parts.name,
    change: parts.change,
    request: parts.request,
    sensitivePaths: parts.secrets.size === 0 ? NONE : pointersToValues(parts.request.body, parts.secrets),
    marker: parts.marker,
    dependsOn: NO_DEPENDENCIES,
    source: parts.source,
    objectId: parts.objectId,
    takes: parts.takes,
    takenFrom: parts.takenFrom,
    frees: parts.frees,
    access: parts.access,
    range: parts.range,
    movedFrom: parts.movedFrom,
    unparks: parts.unparks,
    guardedBy: parts.guardedBy,
  };
}

type Assembled = {
  -readonly [K in keyof DraftAction]: K extends 'dependsOn' ? readonly string[] : DraftAction[K];
};

/**
 * The plan's Action, made of the draft in place (an EntryCreate makes itself
 * one: EntryCreate.assembled): dependencies on left-out
 * actions removed and sorted, the drafting facts emptied so that what only
 * the ordering needed (ranges, key values) is not kept with the plan. The
 * draft is not a DraftAction any more.
 */
export function toAction(draft: DraftAction, keys: ReadonlySet<string>): Action {
  const action = draft as unknown as Assembled;
  action.dependsOn = keptDependencies(draft.dependsOn, keys);
  action.objectId = undefined;
  action.takes = undefined;
  action.takenFrom = undefined;
  action.frees = undefined;
  action.access = undefined;
  action.range = undefined;
  action.movedFrom = undefined;
  action.unparks = undefined;
  action.guardedBy = undefined;
  return action;
}

/** Sorted; a list of its own length when nothing is left out (a filtered copy holds 17 slots, kept per action). */
export function keptDependencies(
  dependsOn: ReadonlySet<string>,
  keys: ReadonlySet<string>,
): readonly string[] {
  if (dependsOn.size === 0) return NONE;
  const kept = [...dependsOn];
  return (kept.every((key) => keys.has(key)) ? kept : kept.filter((key) => keys.has(key))).sort();
}

/** The manifest place of a field of an entry (a JSON Pointer into its spec), or of the entry itself. */
export function sourceOf(entry: DesiredEntry, pointer: string): SourceLocation {
  return entry.fieldLocations[pointer] ?? entry.location;
}
