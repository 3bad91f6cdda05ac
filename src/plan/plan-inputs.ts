import type { FieldRule, Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveState } from '../kinds/live-state.js';
import { KINDS } from '../kinds/registry.js';
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
   * (several steps compare it), held only where it differs from the entry's
   * spec: read it with `normalizedSpecOf`.
   */
  readonly normalizedSpecs: ReadonlyMap<DesiredEntry, Readonly<Record<string, unknown>>>;
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
  const kinds = options.kinds ?? KINDS;
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
    normalizedSpecs: normalizedSpecs(desired.entries, kindsByName),
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
): Map<DesiredEntry, Readonly<Record<string, unknown>>> {
  const normalized = new Map<DesiredEntry, Readonly<Record<string, unknown>>>();
  for (const entry of entries) {
    const kind = kindsByName.get(entry.kind);
    if (kind === undefined) continue;
    const spec = kind.normalizeDesired(entry.spec);
    // Held only where normalizing changed something: see normalizedSpecOf.
    if (!sameSpec(entry.spec, spec)) normalized.set(entry, spec);
  }
  return normalized;
}

/**
 * Whether normalizing changed nothing (same keys in the same order, same
 * values): most entries are written canonically, and a copy of each held
 * for the whole plan, in a map of 100,000, was ~40 MB (docs/performance.md).
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

/** The entry's normalized spec (see `normalizedSpecs`). */
export function normalizedSpecOf(
  inputs: PlanInputs,
  kind: Kind,
  entry: DesiredEntry,
): Readonly<Record<string, unknown>> {
  const normalized = inputs.normalizedSpecs.get(entry);
  if (normalized !== undefined) return normalized;
  // Every entry of a kind in use was normalized up front; one not held normalized to its own spec.
  return inputs.kindsByName.get(entry.kind) === kind ? entry.spec : kind.normalizeDesired(entry.spec);
}

/** The kind's rules in this plan; made on the spot for a kind outside the registry in use. */
export function rulesOf(inputs: PlanInputs, kind: Kind): KindRules {
  return inputs.rules.get(kind) ?? kindRules(kind);
}
