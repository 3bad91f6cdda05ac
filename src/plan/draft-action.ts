import type { ApiRequest } from '../api/edge-api.js';
import { pointersToValues } from '../json-pointer.js';
import type { KindName } from '../kinds/kind-name.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import type { SourceLocation } from '../manifest/source-location.js';
import type { EntryCreate, EntryCreateChange } from './entry-create.js';
import { NONE } from './no-strings.js';
import type { Action, Operation, ResourceChange } from './plan.js';
import type { KeyNumber } from './planner-options.js';

/**
 * An action as drafted: the request it sends and what it does to its
 * object, and no ordering yet. The ordering facts (ordering-facts.ts) are
 * worked out from `before` and `after`, and its dependencies are decided
 * once every action is drafted (dependency-edges.ts).
 */
export interface PlainDraft {
  readonly key: string;
  readonly op: Operation;
  readonly kind: KindName;
  readonly name: string;
  /** Address of the change this action belongs to. */
  readonly change: string;
  readonly request: ApiRequest;
  readonly sensitivePaths: readonly string[];
  readonly marker: { readonly owner: string; readonly name: string } | undefined;
  readonly source: SourceLocation | undefined;
  /** The live object it changes; absent for creates. */
  readonly objectId: string | undefined;
  /** The object's spec (or a module's value) before the action: a delete's, an update's; absent for creates. */
  readonly before: Readonly<Record<string, unknown>> | undefined;
  /** What the action makes of it: a create's or an update's spec, a module's new value; absent for deletes. */
  readonly after: Readonly<Record<string, unknown>> | undefined;
  /** For a module write or removal: the module's name. */
  readonly module: string | undefined;
  /**
   * For the delete of a second object marked with an entry's name (a killed
   * replace, a lost create answer): that entry's address.
   */
  readonly secondCopyOf: string | undefined;
  /** What parking made of this action, when rule 8 split a move (ordering/park-moves.ts). */
  readonly parking: ParkingRole | undefined;
  /** The unique key its object holds after it (PlanKeys): a create's, an update's. */
  readonly takesKey: KeyNumber | undefined;
  /** The unique key its object holds before it: a delete's, an update's. */
  readonly freesKey: KeyNumber | undefined;
}

/** Drafted actions: plain ones, and the compact create of an entry's object (entry-create.ts). */
export type DraftAction = PlainDraft | EntryCreate;

/** How a drafted action takes part in a parked move (ordering rule 8). */
export type ParkingRole =
  /** The PATCH from the parking spot to the target: it undoes what the PATCH to the spot (`unparks`) widened. */
  | { readonly unparks: string }
  /** A deny moving to a target a temporary deny (`guardedBy`, its create) already holds. */
  | { readonly guardedBy: string };

/**
 * A ResourceChange while drafting: itself, not a wrapper (one per change was
 * ~5 MB at 100,000 creates), with the keys of its actions.
 */
export interface PlainDraftChange extends ResourceChange {
  readonly actionKeys: readonly string[];
}

/** Drafted changes: plain ones, and the compact change of an entry's create. */
export type DraftChange = PlainDraftChange | EntryCreateChange;

/** The parts of a PlainDraft that callers give; the rest are worked out or left unset. */
export type DraftParts = Pick<PlainDraft, 'key' | 'op' | 'kind' | 'name' | 'change' | 'request'> &
  Partial<Omit<PlainDraft, 'key' | 'op' | 'kind' | 'name' | 'change' | 'request' | 'sensitivePaths'>> & {
    /** Secret strings of the request body: their places become `sensitivePaths`. */
    readonly secrets: ReadonlySet<string>;
  };

/** A PlainDraft whose secret values are located in the request body. */
export function draftAction(parts: DraftParts): PlainDraft {
  // One literal with every property, in the plan's order: one hidden class for all drafts.
  return {
    key: parts.key,
    op: parts.op,
    kind: parts.kind,
    name: parts.name,
    change: parts.change,
    request: parts.request,
    sensitivePaths: parts.secrets.size === 0 ? NONE : pointersToValues(parts.request.body, parts.secrets),
    marker: parts.marker,
    source: parts.source,
    objectId: parts.objectId,
    before: parts.before,
    after: parts.after,
    module: parts.module,
    secondCopyOf: parts.secondCopyOf,
    parking: parts.parking,
    takesKey: parts.takesKey,
    freesKey: parts.freesKey,
  };
}

/** The plan's Action of a plain draft, waiting for `dependsOn`: the drafting facts stay behind. */
export function plainAction(draft: PlainDraft, dependsOn: readonly string[]): Action {
  return {
    key: draft.key,
    op: draft.op,
    kind: draft.kind,
    name: draft.name,
    change: draft.change,
    request: draft.request,
    sensitivePaths: draft.sensitivePaths,
    marker: draft.marker,
    dependsOn,
    source: draft.source,
  };
}

/** The manifest place of a field of an entry (a JSON Pointer into its spec), or of the entry itself. */
export function sourceOf(entry: DesiredEntry, pointer: string): SourceLocation {
  return entry.fieldLocations[pointer] ?? entry.location;
}
