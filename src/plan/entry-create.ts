import type { ApiRequest } from '../api/edge-api.js';
import { pointersToValues } from '../json-pointer.js';
import { asRecord } from '../json-value.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { OwnershipMarker } from '../kinds/live-state.js';
import { encodeMetadata, normalizeUserMetadata } from '../kinds/ownership-marker.js';
import type { DesiredEntry } from '../manifest/desired-state.js';
import type { SourceLocation } from '../manifest/source-location.js';
import { diffFields, type SharedFieldChanges } from './compare-fields.js';
import { NONE } from './no-strings.js';
import type { Action, FieldChange } from './plan.js';
import type { KindRules } from './plan-inputs.js';
import type { KeyNumber } from './planner-options.js';
import { METADATA_FIELD, ROUTES_KEY, secretsOf } from './spec-fields.js';

/**
 * The create of an entry's object that nothing else shapes (no follow-up
 * update, not half of a replace): by far the most common action, 100,000 of
 * them in the first apply of a large account. It keeps only what it is made
 * of (its key, the entry, the resolved spec, what the creates of its kind
 * share) and derives the rest when read: address, request, marker, secrets'
 * places. Its change (EntryCreateChange) derives the field changes and the
 * reason the same way. As plain objects, a create's action and change held
 * ~920 bytes until the plan was written, most of the plan's peak
 * (docs/performance.md).
 *
 * Its Action properties are its own and enumerable, in a plain Action's
 * order, and the rest is private: a spread, JSON.stringify, Object.keys and
 * an equality test see what they see of a plain Action. Each derived one is
 * made again on each read: read it once where it is used many times.
 * Values it already holds (`op`, `kind`, `name`) are plain properties, and
 * the instance is frozen, so that none can be written: an accessor defined
 * on an instance is a call into V8's runtime (0.4-1 µs, 40-100 ms per
 * 100,000 creates each), where a slot costs 8 bytes.
 */
export class EntryCreate {
  declare readonly key: string;
  declare readonly op: 'create';
  declare readonly kind: KindName;
  declare readonly name: string;
  declare readonly change: string;
  declare readonly request: ApiRequest;
  declare readonly sensitivePaths: readonly string[];
  declare readonly marker: { readonly owner: string; readonly name: string };
  declare readonly dependsOn: readonly string[];
  declare readonly source: SourceLocation;
  // What only a plain draft has (draft-action.ts): a create of an entry's object has none of it.
  declare readonly objectId: undefined;
  declare readonly before: undefined;
  declare readonly after: undefined;
  declare readonly module: undefined;
  declare readonly secondCopyOf: undefined;
  declare readonly parking: undefined;
  declare readonly freesKey: undefined;
  readonly #entry: DesiredEntry;
  /** The entry's spec normalized and with names resolved: what the request carries. */
  readonly #spec: Readonly<Record<string, unknown>>;
  readonly #shared: CreatesOfKind;
  /** The unique key the entry holds (PlanKeys); undefined for a kind without one. */
  readonly #uniqueKey: KeyNumber | undefined;

  /** The derived properties before `dependsOn`, then after it; defined on each instance (see above). */
  static readonly #before: readonly (readonly [string, PropertyDescriptor])[] = [
    // The change's address: the key without its `create:`.
    ['change', derived((create: EntryCreate) => create.key.slice(CREATE_PREFIX.length))],
    ['request', derived((create: EntryCreate) => create.#request())],
    ['sensitivePaths', derived((create: EntryCreate) => create.#sensitivePaths())],
    ['marker', derived((create: EntryCreate) => ({ owner: create.#shared.owner, name: create.#entry.name }))],
  ];
  static readonly #after: readonly (readonly [string, PropertyDescriptor])[] = [
    ['source', derived((create: EntryCreate) => create.#entry.location)],
  ];

  /** `dependsOn`: none while drafting; the plan's, once assembled (see `waitingFor`). */
  constructor(
    shared: CreatesOfKind,
    entry: DesiredEntry,
    spec: Readonly<Record<string, unknown>>,
    key: string,
    uniqueKey: KeyNumber | undefined,
    dependsOn: readonly string[] = NONE,
  ) {
    this.#entry = entry;
    this.#spec = spec;
    this.#shared = shared;
    this.#uniqueKey = uniqueKey;
    (this as { key: string }).key = key;
    (this as { op: 'create' }).op = 'create';
    (this as { kind: KindName }).kind = shared.kind.name;
    (this as { name: string }).name = entry.name;
    for (const [name, descriptor] of EntryCreate.#before) Object.defineProperty(this, name, descriptor);
    (this as { dependsOn: readonly string[] }).dependsOn = dependsOn;
    for (const [name, descriptor] of EntryCreate.#after) Object.defineProperty(this, name, descriptor);
    Object.freeze(this);
  }

  /** Whether the entry is marked `protect`. */
  get isProtected(): boolean {
    return this.#entry.protect;
  }

  /** The spec it creates the object with: normalized, names resolved. */
  createdSpec(): Readonly<Record<string, unknown>> {
    return this.#spec;
  }

  /** The unique key the created object holds, as drafted (PlainDraft.takesKey). */
  get takesKey(): KeyNumber | undefined {
    return this.#uniqueKey;
  }

  /**
   * The plan's Action of this draft, waiting for `dependsOn`: the draft
   * itself when it waits for nothing (most creates), else a create of the
   * same parts that waits for them.
   */
  waitingFor(dependsOn: readonly string[]): Action {
    const create =
      dependsOn.length === 0
        ? this
        : new EntryCreate(this.#shared, this.#entry, this.#spec, this.key, this.#uniqueKey, dependsOn);
    return create as unknown as Action;
  }

  /** What people read about it: its change, made of the same parts. */
  resourceChange(): EntryCreateChange {
    return new EntryCreateChange(this.#shared, this.#entry, this.#spec, this.key);
  }

  #request(): ApiRequest {
    const { kind, owner } = this.#shared;
    const metadata = encodeMetadata(
      normalizeUserMetadata(this.#spec[METADATA_FIELD]) as Record<string, unknown> | undefined,
      entryMarker(owner, this.#entry),
    );
    return createRequestOf(kind, this.#spec, metadata);
  }

  #sensitivePaths(): readonly string[] {
    const secrets = secretsOf(this.#shared.kind, this.#spec, this.#shared.hasSensitiveFields);
    return secrets.size === 0 ? NONE : pointersToValues(this.#request().body, secrets);
  }
}

/**
 * The change of an EntryCreate: what people read about it, derived from it
 * when read. Its properties are own, enumerable and in a plain
 * ResourceChange's order, as EntryCreate's are, and those it holds as they
 * are (`op`, `kind`, `name`, `reason`) plain properties.
 */
export class EntryCreateChange {
  declare readonly address: string;
  declare readonly op: 'create';
  declare readonly kind: KindName;
  declare readonly name: string;
  declare readonly changes: readonly FieldChange[];
  declare readonly reason: string;
  declare readonly source: SourceLocation;
  /** Its one action. Frozen: nothing edits a create's list. */
  declare readonly actionKeys: readonly string[];
  readonly #key: string;
  readonly #entry: DesiredEntry;
  readonly #spec: Readonly<Record<string, unknown>>;
  readonly #shared: CreatesOfKind;

  static readonly #address: PropertyDescriptor = derived((change: EntryCreateChange) =>
    change.#key.slice(CREATE_PREFIX.length),
  );
  static readonly #changes: PropertyDescriptor = derived((change: EntryCreateChange) =>
    creationChanges(change.#shared.kind, change.#spec, change.#shared.fieldChanges),
  );
  static readonly #after: readonly (readonly [string, PropertyDescriptor])[] = [
    ['source', derived((change: EntryCreateChange) => change.#entry.location)],
    ['actionKeys', derived((change: EntryCreateChange) => Object.freeze([change.#key]))],
  ];

  /** The parts of its create (EntryCreate), not the create: the plan may hold another create of them. */
  constructor(
    shared: CreatesOfKind,
    entry: DesiredEntry,
    spec: Readonly<Record<string, unknown>>,
    key: string,
  ) {
    this.#key = key;
    this.#entry = entry;
    this.#spec = spec;
    this.#shared = shared;
    Object.defineProperty(this, 'address', EntryCreateChange.#address);
    (this as { op: 'create' }).op = 'create';
    (this as { kind: KindName }).kind = shared.kind.name;
    (this as { name: string }).name = entry.name;
    Object.defineProperty(this, 'changes', EntryCreateChange.#changes);
    (this as { reason: string }).reason = NOT_LIVE;
    for (const [name, descriptor] of EntryCreateChange.#after) Object.defineProperty(this, name, descriptor);
    Object.freeze(this);
  }
}

/**
 * An own, enumerable, read-only property whose value `read` derives: one
 * getter for every instance, so that they share their shape.
 */
function derived<T>(read: (self: T) => unknown): PropertyDescriptor {
  return {
    get(this: T): unknown {
      return read(this);
    },
    enumerable: true,
  };
}

/** What the creates of one kind in one plan share. */
export class CreatesOfKind {
  readonly kind: Kind;
  readonly owner: string;
  readonly hasSensitiveFields: boolean;
  readonly fieldChanges: SharedFieldChanges;

  constructor(rules: KindRules, owner: string, fieldChanges: SharedFieldChanges) {
    this.kind = rules.kind;
    this.owner = owner;
    this.hasSensitiveFields = rules.hasSensitiveFields;
    this.fieldChanges = fieldChanges;
  }
}

export const CREATE_PREFIX = 'create:';

/** Why an object is created. */
export const NOT_LIVE = 'not in the live account';

/** The ownership marker an entry's object carries: our owner, its name, and `protect` when set. */
export function entryMarker(owner: string, entry: DesiredEntry): OwnershipMarker {
  return { owner, name: entry.name, ...(entry.protect ? { protect: true } : {}) };
}

/**
 * The request that creates an object of `kind` with `spec`: the spec but its
 * metadata (sent as `metadata`, marker included) and, for kinds with route
 * modules, its routes, which exist already and are only selected.
 */
export function createRequestOf(
  kind: Kind,
  spec: Readonly<Record<string, unknown>>,
  metadata: string,
): ApiRequest {
  const { [METADATA_FIELD]: _metadata, [ROUTES_KEY]: routes, ...createSpec } = spec;
  const bodySpec = kind.modules.some((module) => module.scope === 'route')
    ? createSpec
    : { ...createSpec, ...(routes === undefined ? {} : { [ROUTES_KEY]: routes }) };
  return kind.createRequest(bodySpec, metadata);
}

/** What a create sets, for people: every field, and every field of every module it sets. */
export function creationChanges(
  kind: Kind,
  spec: Readonly<Record<string, unknown>>,
  shared: SharedFieldChanges,
): FieldChange[] {
  const changes = diffFields(kind.fields, spec, undefined, '', shared);
  for (const module of kind.modules) {
    if (module.scope !== 'resource') continue;
    const value = asRecord(spec[module.name]);
    if (value !== undefined)
      changes.push(...diffFields(module.fields, value, undefined, `${module.name}.`, shared));
  }
  return changes;
}
