import type { Kind } from '../kinds/kind.js';
import type { MaxDestroy, SafetyContextName } from './safety-policy.js';

/** What the planner is asked for besides the desired and live states. */
export interface PlanOptions {
  /** The ownership marker's owner: only objects marked with it are changed or pruned. */
  readonly owner: string;
  /**
   * Deletes plus replaces allowed before the plan is refused.
   * @default 10% of the objects this owner owns, at least 5 (safety-policy.ts)
   */
  readonly maxDestroy?: MaxDestroy;
  /** Accept a plan over `maxDestroy` (never in the daemon). @default false */
  readonly force?: boolean;
  /** Accept an empty desired state that prunes everything the owner owns (never in the daemon). @default false */
  readonly allowEmpty?: boolean;
  /** Who will apply the plan; the safety policy judges it for them. @default 'cli' */
  readonly context?: SafetyContextName;
  /** `KIND` or `KIND.NAME`: plan only these (and what they depend on). @default all */
  readonly targets?: readonly string[];
  /** `KIND` or `KIND.NAME`: leave these out. @default none */
  readonly excludes?: readonly string[];
  /** The registry of kinds, in the order plans list them: entry points pass the built-in KINDS. */
  readonly kinds: readonly Kind[];
  /**
   * What the plan's first phase works out each entry's comparable form and
   * unique key with, once per entry; every later phase carries them. Tests
   * pass builders that count their calls.
   * @default the planner's own (entry-keys.ts)
   */
  readonly keyBuilders?: EntryKeyBuilders;
}

/** A unique key (Kind.uniqueKey) within one plan: equal keys of one kind have one number, other keys others. */
export type KeyNumber = number;

/** The key builders (entry-keys.ts): what the planner compares entries and live objects by. */
export interface EntryKeyBuilders {
  /** A spec as compared: through its kind's `normalizeDesired`; the spec itself where that changes nothing. */
  readonly comparableForm: (
    kind: Kind,
    spec: Readonly<Record<string, unknown>>,
  ) => Readonly<Record<string, unknown>>;
  /** A numbering of unique keys for one plan. */
  readonly keyNumbering: () => KeyNumbering;
}

/** Numbers unique keys: the same number for the same key, whenever asked. */
export interface KeyNumbering {
  /** The number of `spec`'s key; undefined for a kind without one. */
  numberOf(kind: Kind, spec: Readonly<Record<string, unknown>>): KeyNumber | undefined;
}
