import type { FieldRule, Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveState } from '../kinds/live-state.js';
import { type DesiredEntry, type DesiredState, entriesByKindAndName } from '../manifest/desired-state.js';
import { indexLive, type LiveById, type MarkedByKindAndName } from './live-index.js';
import type { PlanOptions } from './planner-options.js';
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
   * Each entry's spec through its kind's `normalizeDesired`, computed once
   * (several steps compare it): `specs[i]` is `desired.entries[i]`'s. Where
   * normalizing changes nothing (most entries) it is the entry's own spec, not
   * a copy.
   */
  readonly specs: readonly Readonly<Record<string, unknown>>[];
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
  readonly hasUniqueKey: boolean;
}

/** The inputs of one plan, indexed. */
export function planInputs(desired: DesiredState, live: LiveState, options: PlanOptions): PlanInputs {
  const { kinds } = options;
  const kindsByName = new Map(kinds.map((kind) => [kind.name, kind]));
  const { liveById, managed } = indexLive(live, options.owner, [...kindsByName.values()]);
  return {
    desired,
    live,
    options,
    owner: options.owner,
    kindsByName,
    rules: new Map([...kindsByName.values()].map((kind) => [kind, kindRules(kind)])),
    liveById,
    managed,
    specs: normalizedSpecs(desired.entries, kindsByName),
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
    hasUniqueKey: kind.uniqueKey !== undefined && kind.uniqueKey.length > 0,
  };
}

function normalizedSpecs(
  entries: readonly DesiredEntry[],
  kindsByName: ReadonlyMap<KindName, Kind>,
): Readonly<Record<string, unknown>>[] {
  // Sized once: grown by push, a list of 100,000 leaves its earlier copies as garbage.
  const specs = new Array<Readonly<Record<string, unknown>>>(entries.length);
  for (let at = 0; at < entries.length; at += 1) {
    const { kind: name, spec } = entries[at] as DesiredEntry;
    const normalized = kindsByName.get(name)?.normalizeDesired(spec) ?? spec;
    specs[at] = sameSpec(spec, normalized) ? spec : normalized;
  }
  return specs;
}

/**
 * Whether normalizing changed nothing (same keys in the same order, same
 * values): most entries are written canonically, and a copy of each held
 * for the whole plan was ~40 MB at 100,000 (docs/performance.md).
 */
function sameSpec(
  spec: Readonly<Record<string, unknown>>,
  normalized: Readonly<Record<string, unknown>>,
): boolean {
  const keys = Object.keys(spec);
  const normalizedKeys = Object.keys(normalized);
  if (keys.length !== normalizedKeys.length) return false;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    if (normalizedKeys[index] !== key || spec[key] !== normalized[key]) return false;
  }
  return true;
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
