import { inlineRecord } from '../inline-record.js';
import type { Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import type { SourceLocation } from '../manifest/source-location.js';
import { SharedFieldChanges } from './compare-fields.js';
import {
  type DraftAction,
  type DraftChange,
  type DraftParts,
  draftAction,
  type PlainDraftChange,
} from './draft-action.js';
import { CreatesOfKind, EntryCreate } from './entry-create.js';
import type { PendingId } from './pending-id.js';
import type { PlanError, ResourceChange } from './plan.js';
import type { KindRules, PlanInputs } from './plan-inputs.js';
import type { KeyNumber } from './planner-options.js';
import type { ItemTakeover } from './unique-items.js';

/**
 * What drafting returns: every change and action the plan needs, in the
 * order drafted (entries in reference order, then prunes), and what drafting
 * learned of the account. No action has an ordering fact or a dependency yet.
 */
export interface Drafts {
  readonly changes: readonly DraftChange[];
  readonly actions: readonly DraftAction[];
  readonly errors: readonly PlanError[];
  readonly warnings: readonly PlanError[];
  /** Entries whose object needs no change. */
  readonly unchanged: number;
  /**
   * Live objects some entry stands for (never pruned, never counted as
   * unmanaged), each with its entry, to point errors about it at the manifest.
   */
  readonly claims: ReadonlyMap<LiveObject, DesiredEntry>;
  /**
   * Live objects the plan read or changes besides those claimed: the
   * fingerprints of both go into the plan. Claims are not repeated here: at
   * 100,000 entries that was a second set of every ID, and its garbage, at
   * the plan's peak.
   */
  readonly touched: ReadonlySet<string>;
  /** Changes of entries marked `protect` (few, usually none): the safety rules judge their destroys. */
  readonly protectedChanges: ReadonlySet<DraftChange>;
  /** Delete key → create key of each replace: its two halves, which ordering rule 7 places. */
  readonly replacements: ReadonlyMap<string, string>;
  /** The items of unique list fields (hostports) that change hands: ordering rules 3 and 7 place their actions. */
  readonly takeovers: readonly ItemTakeover[];
}

/** What entry planners read while drafting: the inputs, and what the entries drafted before resolve to. */
export interface DraftContext {
  readonly inputs: PlanInputs;
  /**
   * `kind.name` → the ID the entry has (or will have) once applied, for
   * kinds that some field references (see DraftBook.add).
   */
  readonly resolvedIds: ReadonlyMap<string, string | PendingId>;
  /** FieldChanges the creates of this plan share. */
  readonly sharedFieldChanges: SharedFieldChanges;
}

/** A change as a planner drafts it: the book makes its actions and writes it in (DraftBook.add). */
export type DraftedChange =
  | {
      readonly change: Omit<ResourceChange, 'actionKeys' | 'source'>;
      readonly source: SourceLocation | undefined;
      /** Its actions as parts: the book makes them drafts. */
      readonly actions: readonly DraftParts[];
    }
  | {
      /** The create of an entry's object that nothing else shapes: the book makes it an EntryCreate. */
      readonly entryCreate: {
        readonly rules: KindRules;
        readonly entry: DesiredEntry;
        readonly spec: Readonly<Record<string, unknown>>;
        readonly key: string;
        /** The unique key the entry holds (PlanKeys). */
        readonly uniqueKey: KeyNumber | undefined;
      };
    };

/**
 * What a planner drafted: a value it fills in and returns, and that
 * draftPlan writes into the book, the drafts' one writer.
 */
export interface Drafted {
  readonly changes: DraftedChange[];
  readonly errors: PlanError[];
  readonly warnings: PlanError[];
  /** IDs of live objects read or changed besides those claimed (Drafts.touched). */
  readonly touched: string[];
}

/** What drafting one entry found. */
export interface EntryDraft extends Drafted {
  readonly entry: DesiredEntry;
  /** The live object the entry stands for (Drafts.claims). */
  claimed: LiveObject | undefined;
  /** What the entry's name resolves to in the fields of entries drafted after it: its ID, or its create's PendingId. */
  resolvedId: string | PendingId | undefined;
  /** The delete key and create key of the entry's replace (Drafts.replacements). */
  replaces: readonly [string, string] | undefined;
  /** Whether the entry's object needs no change. */
  unchanged: boolean;
}

/**
 * The drafts while drafting fills them in, entry by entry: drafting's own
 * book, which it hands on as Drafts once every entry and prune is in.
 */
export class DraftBook implements DraftContext {
  readonly inputs: PlanInputs;
  readonly changes: DraftChange[] = [];
  readonly actions: DraftAction[] = [];
  readonly errors: PlanError[];
  readonly warnings: PlanError[] = [];
  unchanged = 0;
  readonly claims = new Map<LiveObject, DesiredEntry>();
  readonly touched = new Set<string>();
  readonly protectedChanges = new Set<DraftChange>();
  readonly replacements = new Map<string, string>();
  readonly resolvedIds = new Map<string, string | PendingId>();
  readonly sharedFieldChanges = new SharedFieldChanges();
  /** What the EntryCreates of each kind share, made when the kind's first is drafted. */
  readonly #createsOfKind = new Map<Kind, CreatesOfKind>();

  /** `errors`: what was found before the first entry was drafted. */
  constructor(inputs: PlanInputs, errors: readonly PlanError[]) {
    this.inputs = inputs;
    this.errors = [...errors];
  }

  /** Writes in what drafting an entry (or the prunes) found, its changes' actions made drafts. */
  add(drafted: Drafted | EntryDraft): void {
    for (const error of drafted.errors) this.errors.push(error);
    for (const warning of drafted.warnings) this.warnings.push(warning);
    for (const id of drafted.touched) this.touched.add(id);
    const entry = 'entry' in drafted ? drafted.entry : undefined;
    if ('entry' in drafted) {
      if (drafted.claimed !== undefined) this.claims.set(drafted.claimed, drafted.entry);
      // Only for referenced kinds: a map of 100,000 rules' addresses that no field can name was most of what
      // planning them kept.
      if (drafted.resolvedId !== undefined && this.inputs.referencedKinds.has(drafted.entry.kind))
        this.resolvedIds.set(`${drafted.entry.kind}.${drafted.entry.name}`, drafted.resolvedId);
      if (drafted.replaces !== undefined) this.replacements.set(drafted.replaces[0], drafted.replaces[1]);
      if (drafted.unchanged) this.unchanged += 1;
    }
    for (const drafting of drafted.changes) {
      if ('change' in drafting) {
        const actions = drafting.actions.map((parts) => draftAction(parts));
        this.actions.push(...actions);
        const change = draftChange(
          drafting.change,
          drafting.source,
          actions.map((action) => action.key),
        );
        this.changes.push(change);
        if (entry?.protect === true) this.protectedChanges.add(change);
        continue;
      }
      const { rules, spec, key, uniqueKey } = drafting.entryCreate;
      const create = new EntryCreate(
        this.#createsOf(rules),
        drafting.entryCreate.entry,
        spec,
        key,
        uniqueKey,
      );
      const change = create.resourceChange();
      this.actions.push(create);
      this.changes.push(change);
      if (create.isProtected) this.protectedChanges.add(change);
    }
  }

  /** The book, closed: drafting's result but the takeovers, found once every entry and prune is in. */
  drafts(): Omit<Drafts, 'takeovers'> {
    return {
      changes: this.changes,
      actions: this.actions,
      errors: this.errors,
      warnings: this.warnings,
      unchanged: this.unchanged,
      claims: this.claims,
      touched: this.touched,
      protectedChanges: this.protectedChanges,
      replacements: this.replacements,
    };
  }

  /** What the EntryCreates of a kind share in this plan. */
  #createsOf(rules: KindRules): CreatesOfKind {
    let shared = this.#createsOfKind.get(rules.kind);
    if (shared === undefined) {
      shared = new CreatesOfKind(rules, this.inputs.owner, this.sharedFieldChanges);
      this.#createsOfKind.set(rules.kind, shared);
    }
    return shared;
  }
}

/**
 * What Object.assign({}, change, source ? { source } : {}, { actionKeys })
 * gives, its properties in the object (inlineRecord). actionKeys from the
 * start: added later, it grew each change's property store, and the old one
 * was promoted garbage.
 */
export function draftChange(
  change: Omit<ResourceChange, 'actionKeys' | 'source'>,
  source: SourceLocation | undefined,
  actionKeys: readonly string[],
): PlainDraftChange {
  const keys = Object.keys(change);
  const values = keys.map((key) => (change as Readonly<Record<string, unknown>>)[key]);
  const set = (key: string, value: unknown): void => {
    const at = keys.indexOf(key);
    if (at === -1) {
      keys.push(key);
      values.push(value);
    } else values[at] = value;
  };
  if (source) set('source', source);
  set('actionKeys', actionKeys);
  return inlineRecord(keys, values) as unknown as PlainDraftChange;
}
