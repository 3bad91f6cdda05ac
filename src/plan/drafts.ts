import { inlineRecord } from '../inline-record.js';
import type { Kind } from '../kinds/kind.js';
import type { LiveObject } from '../kinds/live-state.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import type { SourceLocation } from '../manifest/source-location.js';
import { SharedFieldChanges } from './compare-fields.js';
import type { DraftAction, DraftChange, PlainDraft, PlainDraftChange } from './draft-action.js';
import { CreatesOfKind, type EntryCreate, type EntryCreateChange } from './entry-create.js';
import type { PendingId } from './pending-id.js';
import type { PlanError, ResourceChange } from './plan.js';
import type { KindRules, PlanInputs } from './plan-inputs.js';

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
}

/**
 * The drafts while drafting fills them in, entry by entry: drafting's own
 * book, which it hands on as Drafts once every entry and prune is in.
 */
export class DraftBook {
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
  /**
   * `kind.name` → the ID the entry has (or will have) once applied, for
   * kinds that some field references (see `recordResolvedId`).
   */
  readonly resolvedIds = new Map<string, string | PendingId>();
  /** FieldChanges the creates of this plan share. */
  readonly sharedFieldChanges = new SharedFieldChanges();
  /** What the EntryCreates of each kind share, made when the kind's first is drafted. */
  readonly #createsOfKind = new Map<Kind, CreatesOfKind>();

  /** `errors`: what was found before the first entry was drafted. */
  constructor(inputs: PlanInputs, errors: readonly PlanError[]) {
    this.inputs = inputs;
    this.errors = [...errors];
  }

  /**
   * Records the ID an entry's name resolves to. Only for referenced kinds: a
   * map of 100,000 rules' addresses that no field can name was most of what
   * planning them kept.
   */
  recordResolvedId(kind: Kind, address: string, id: string | PendingId): void {
    if (this.inputs.referencedKinds.has(kind.name)) this.resolvedIds.set(address, id);
  }

  /** Marks a live object as the one `entry` stands for. */
  claim(object: LiveObject, entry: DesiredEntry): void {
    this.claims.set(object, entry);
  }

  /** Records one change for people and the actions that carry it out. */
  addChange(
    change: Omit<ResourceChange, 'actionKeys' | 'source'>,
    entry: DesiredEntry | undefined,
    source: SourceLocation | undefined,
    actions: readonly PlainDraft[],
  ): void {
    this.actions.push(...actions);
    const draft = draftChange(
      change,
      source,
      actions.map((action) => action.key),
    );
    this.changes.push(draft);
    if (entry?.protect === true) this.protectedChanges.add(draft);
  }

  /** What the EntryCreates of a kind share in this plan. */
  createsOf(rules: KindRules): CreatesOfKind {
    let shared = this.#createsOfKind.get(rules.kind);
    if (shared === undefined) {
      shared = new CreatesOfKind(rules, this.inputs.owner, this.sharedFieldChanges);
      this.#createsOfKind.set(rules.kind, shared);
    }
    return shared;
  }

  /** Records the create of an entry's object as an EntryCreate, and its change. */
  addEntryCreate(create: EntryCreate, change: EntryCreateChange): void {
    this.actions.push(create);
    this.changes.push(change);
    if (create.isProtected) this.protectedChanges.add(change);
  }

  /** The book, closed: drafting's result. */
  drafts(): Drafts {
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
