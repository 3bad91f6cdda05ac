import type { FieldRule, Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveObject, LiveState } from '../kinds/live-state.js';
import { type DesiredEntry, type DesiredState, entriesByKindAndName } from '../manifest/desired-state.js';
import { ENTRY_KEY_BUILDERS } from './entry-keys.js';
import { indexLive, type LiveById, type MarkedByKindAndName } from './live-index.js';
import type { EntryKeyBuilders, KeyNumber, KeyNumbering, PlanOptions } from './planner-options.js';
import { METADATA_FIELD } from './spec-fields.js';

/**
 * What the planner plans from, with the indexes every phase reads: made once,
 * before drafting, and never written after. Nothing here is derived from
 * another phase's output.
 */
export interface PlanInputs {
  readonly desired: DesiredState;
  readonly live: LiveState;
  readonly options: PlanOptions;
  /** The ownership marker's owner (`options.owner`). */
  readonly owner: string;
  /** The registry in use, by name, in the order plans list the kinds. */
  readonly kindsByName: ReadonlyMap<KindName, Kind>;
  /** What each kind of the registry is planned with (see KindRules). */
  readonly rules: ReadonlyMap<Kind, KindRules>;
  readonly liveById: LiveById;
  /** Objects marked with our owner, by kind and name; the one a name matches comes first. */
  readonly managed: MarkedByKindAndName;
  /**
   * Each entry's comparable form (its spec through its kind's
   * `normalizeDesired`), worked out once: `specs[i]` is
   * `desired.entries[i]`'s. Where normalizing changes nothing (most entries)
   * it is the entry's own spec, not a copy.
   */
  readonly specs: readonly Readonly<Record<string, unknown>>[];
  /** Each entry's and each live object's unique key, worked out once (see PlanKeys). */
  readonly keys: PlanKeys;
  /** Kinds named by some kind's reference fields: only their entries' IDs are looked up by name. */
  readonly referencedKinds: ReadonlySet<KindName>;
  /** Desired entries by kind, then name (see DesiredByName). */
  readonly desiredByName: DesiredByName;
}

/** What the planner works out of one kind's rules, once per plan rather than once per entry. */
export interface KindRules {
  readonly kind: Kind;
  /** The fields an update compares, metadata aside (compared with the marker). */
  readonly comparedFields: readonly FieldRule[];
  readonly metadataRule: FieldRule;
  /** Fields whose change replaces the object. */
  readonly replacingFields: readonly FieldRule[];
  /** Whether any field, of the kind or of a module, is a secret: no walk of a spec that can hold none. */
  readonly hasSensitiveFields: boolean;
  /** Whether any field, of the kind or of a module, names objects of a kind (`references`): only such a spec holds a PendingId. */
  readonly hasReferenceFields: boolean;
  readonly hasUniqueKey: boolean;
}

/** The inputs of one plan, indexed. */
export function planInputs(desired: DesiredState, live: LiveState, options: PlanOptions): PlanInputs {
  const { kinds } = options;
  const builders = options.keyBuilders ?? ENTRY_KEY_BUILDERS;
  const kindsByName = new Map(kinds.map((kind) => [kind.name, kind]));
  const { liveById, managed } = indexLive(live, options.owner, [...kindsByName.values()]);
  const specs = comparableForms(desired.entries, kindsByName, builders);
  return {
    desired,
    live,
    options,
    owner: options.owner,
    kindsByName,
    rules: new Map([...kindsByName.values()].map((kind) => [kind, kindRules(kind)])),
    liveById,
    managed,
    specs,
    keys: planKeys(builders.keyNumbering(), desired.entries, specs, kindsByName, liveById),
    referencedKinds: referencedKindsOf(kinds),
    desiredByName: new DesiredByName(desired.entries),
  };
}

function kindRules(kind: Kind): KindRules {
  const moduleFields = kind.modules.flatMap((module) => module.fields);
  return {
    kind,
    comparedFields: kind.fields.filter((rule) => rule.name !== METADATA_FIELD),
    metadataRule: kind.fields.find((rule) => rule.name === METADATA_FIELD) ?? {
      name: METADATA_FIELD,
      onChange: 'update',
    },
    replacingFields: kind.fields.filter((rule) => rule.onChange === 'replace'),
    hasSensitiveFields: [...kind.fields, ...moduleFields].some((rule) => rule.sensitive === true),
    hasReferenceFields: [...kind.fields, ...moduleFields].some((rule) => rule.references !== undefined),
    hasUniqueKey: kind.uniqueKey !== undefined && kind.uniqueKey.length > 0,
  };
}

function comparableForms(
  entries: readonly DesiredEntry[],
  kindsByName: ReadonlyMap<KindName, Kind>,
  builders: EntryKeyBuilders,
): Readonly<Record<string, unknown>>[] {
  // Sized once: grown by push, a list of 100,000 leaves its earlier copies as garbage.
  const specs = new Array<Readonly<Record<string, unknown>>>(entries.length);
  for (let at = 0; at < entries.length; at += 1) {
    const { kind: name, spec } = entries[at] as DesiredEntry;
    const kind = kindsByName.get(name);
    specs[at] = kind === undefined ? spec : builders.comparableForm(kind, spec);
  }
  return specs;
}

/**
 * The unique key (Kind.uniqueKey) of every desired entry and live object,
 * as numbers (KeyNumber), worked out once before drafting: later phases
 * compare these instead of the key fields. An entry's key is that of its
 * comparable form: a kind's key fields hold values, never names to resolve.
 */
export interface PlanKeys {
  /** `entries[i]`: the key of `desired.entries[i]`; undefined for a kind without one. */
  readonly entries: readonly (KeyNumber | undefined)[];
  /** The key of each live object of a kind with one. */
  readonly live: ReadonlyMap<LiveObject, KeyNumber>;
  /**
   * The numbering, for a spec that is no entry's nor live object's (one
   * parking makes): the number of the equal key when one is held, else a new
   * one, the same whenever asked again.
   */
  readonly numbering: KeyNumbering;
}

function planKeys(
  numbering: KeyNumbering,
  entries: readonly DesiredEntry[],
  specs: readonly Readonly<Record<string, unknown>>[],
  kindsByName: ReadonlyMap<KindName, Kind>,
  liveById: LiveById,
): PlanKeys {
  const entryKeys = new Array<KeyNumber | undefined>(entries.length);
  for (let at = 0; at < entries.length; at += 1) {
    const kind = kindsByName.get((entries[at] as DesiredEntry).kind);
    entryKeys[at] =
      kind?.uniqueKey === undefined || kind.uniqueKey.length === 0
        ? undefined
        : numbering.numberOf(kind, specs[at] as Readonly<Record<string, unknown>>);
  }
  const live = new Map<LiveObject, KeyNumber>();
  for (const object of liveById.values()) {
    const kind = kindsByName.get(object.kind);
    if (kind?.uniqueKey === undefined || kind.uniqueKey.length === 0) continue;
    const key = numbering.numberOf(kind, object.spec);
    if (key !== undefined) live.set(object, key);
  }
  return { entries: entryKeys, live, numbering };
}

function referencedKindsOf(kinds: readonly Kind[]): Set<KindName> {
  const referenced = new Set<KindName>();
  for (const kind of kinds) {
    for (const rule of [...kind.fields, ...kind.modules.flatMap((module) => module.fields)])
      if (rule.references !== undefined) referenced.add(rule.references);
  }
  return referenced;
}

/**
 * Desired entries by kind, then name (no `kind.name` string per entry), built
 * the first time a name is asked about: a plan whose entries name no entry
 * and prune nothing (100,000 rules naming their policy by ID, converged or
 * not) needs no map of 100,000 names held through planning
 * (docs/performance.md).
 */
export class DesiredByName {
  readonly #entries: readonly DesiredEntry[];
  #byName: ReadonlyMap<KindName, ReadonlyMap<string, DesiredEntry>> | undefined;

  constructor(entries: readonly DesiredEntry[]) {
    this.#entries = entries;
  }

  /** Every entry, by kind and name. */
  byKind(): ReadonlyMap<KindName, ReadonlyMap<string, DesiredEntry>> {
    this.#byName ??= entriesByKindAndName(this.#entries);
    return this.#byName;
  }

  /** Whether the manifests have an entry of `kind` named `name`. */
  has(kind: KindName, name: string): boolean {
    return this.byKind().get(kind)?.has(name) ?? false;
  }
}
