import { idPrefixOf, idPrefixTitles, referenceIdTitle } from '../kinds/id-titles.js';
import type { EntryProblem, Kind } from '../kinds/kind.js';
import { encodeMetadata, MARKER_KEY } from '../kinds/ownership-marker.js';
import { visitSpec } from '../kinds/visit-spec.js';
import { ManifestError, type ManifestErrorCode } from './manifest-error.js';
import { entryLocation, entryPath, type RawEntry } from './raw-entry.js';
import type { SourceLocation } from './source-location.js';

export const MAX_DESCRIPTION_BYTES = 255;

/** What follows the prefix in every ID: letters and digits, as the schema's `id` patterns say. */
const ID_BODY = /^[A-Za-z0-9]+$/;
export const MAX_METADATA_BYTES = 4096;

function problem(code: ManifestErrorCode, entry: RawEntry, pointer: string, message: string): ManifestError {
  return new ManifestError(code, entryLocation(entry, pointer), entryPath(entry, pointer), message);
}

/** A kind's problem with an entry, placed at the field it names. */
export function entryProblemError(entry: RawEntry, found: EntryProblem): ManifestError {
  return new ManifestError(
    found.code,
    entryLocation(entry, found.pointer),
    entryPath(entry, found.pointer),
    found.message,
    found.cause === undefined ? undefined : { cause: found.cause },
  );
}

/** A reference by name, checked when every file's names are known. */
export interface PendingReference {
  readonly location: SourceLocation;
  readonly path: string;
  readonly reference: string;
  readonly target: Kind;
}

/** An entry's name, where it is written: what the duplicate check across files needs. */
export interface NameFact {
  readonly kind: string;
  readonly name: string;
  readonly location: SourceLocation;
  readonly path: string;
}

/**
 * What one file gives the checks across files (its names, its references
 * by name), kept apart from what its own entries show so that the daemon
 * can keep a file's checks between loads and run only these again.
 */
export interface FileFacts {
  readonly names: NameFact[];
  readonly references: PendingReference[];
  /** Items of unique list fields (`Kind.uniqueItems`: hostports) the file's entries claim; absent when none. */
  items?: ItemFact[];
}

/** An entry's claim on one item of a unique list field. */
interface ItemFact {
  /** The field and the item, without case (host names compare without it). */
  readonly key: string;
  readonly item: string;
  readonly entry: string;
  readonly location: SourceLocation;
  readonly path: string;
}

/** Records in `facts` the items of the entry's unique list fields, for `takeFacts`. */
function claimUniqueItems(entry: RawEntry, kind: Kind, facts: FileFacts): void {
  for (const field of kind.uniqueItems ?? []) {
    const items = entry.value[field];
    if (!Array.isArray(items)) continue;
    items.forEach((item, index) => {
      const pointer = `/${field}/${index}`;
      facts.items ??= [];
      facts.items.push({
        key: `${field} ${String(item).toLowerCase()}`,
        item: String(item),
        entry: `${entry.kind}.${entry.name}`,
        location: entryLocation(entry, pointer),
        path: entryPath(entry, pointer),
      });
    });
  }
}

/**
 * The checks the schema cannot express, over every entry of every file:
 * names (unique per kind, not ID-like), references between entries, and the
 * spec's rules on values. Entries the schema rejected only take part in the
 * name checks, so one mistake is not reported twice.
 *
 * Fed one entry at a time while its file's document is at hand (the loader
 * drops each document once its entries are built): what needs only the
 * entry is checked at once, and a reference by name, which needs every
 * file's names, is kept with its place and path until `finish`.
 */
export class EntryChecks {
  private readonly kindByName: ReadonlyMap<string, Kind>;
  private readonly titles: ReadonlyMap<string, string>;
  /** Where each name of each kind is first defined: duplicates, and what references resolve to. */
  private readonly firstByName = new Map<string, Map<string, SourceLocation>>();
  private readonly pending: PendingReference[] = [];
  /** Where each item of a unique list field (`Kind.uniqueItems`: a hostport) is first claimed, and by which entry. */
  private readonly firstByItem = new Map<string, ItemFact>();

  constructor(
    private readonly owner: string,
    kinds: readonly Kind[],
  ) {
    this.kindByName = new Map(kinds.map((kind) => [kind.name as string, kind]));
    this.titles = idPrefixTitles(kinds);
  }

  /** The problems of one entry that its own file shows; `location` is where its name is written. */
  check(entry: RawEntry, location: SourceLocation): ManifestError[] {
    const facts: FileFacts = { names: [], references: [] };
    return [...this.checkAlone(entry, location, facts), ...this.takeFacts(facts)];
  }

  /**
   * The problems of one entry alone (an ID-like name, sizes, the kind's
   * rules, a reference with another kind's ID prefix); its name and its
   * references by name go into `facts`, for `takeFacts`.
   */
  checkAlone(entry: RawEntry, location: SourceLocation, facts: FileFacts): ManifestError[] {
    const errors = this.checkIdLikeName(entry);
    facts.names.push({ kind: entry.kind, name: entry.name, location, path: entryPath(entry) });
    const kind = this.kindByName.get(entry.kind);
    if (kind === undefined) return errors;
    if (!entry.valid) return [...errors, ...this.checkBesideSchema(entry, kind)];
    errors.push(...checkMetadataAndDescription(entry, kind, this.owner));
    for (const found of kind.checkEntry?.(entry.value) ?? []) errors.push(entryProblemError(entry, found));
    errors.push(...this.checkReferences(entry, kind, facts.references));
    claimUniqueItems(entry, kind, facts);
    return errors;
  }

  /** A file's names and references, in file order: names defined twice now, references at `finish`. */
  takeFacts(facts: FileFacts): ManifestError[] {
    const errors: ManifestError[] = [];
    for (const fact of facts.names) {
      const duplicate = this.takeName(fact);
      if (duplicate !== undefined) errors.push(duplicate);
    }
    this.pending.push(...facts.references);
    for (const fact of facts.items ?? []) {
      const duplicate = this.takeItem(fact);
      if (duplicate !== undefined) errors.push(duplicate);
    }
    return errors;
  }

  /** The references by name that no entry of any file answers. */
  finish(): ManifestError[] {
    const errors: ManifestError[] = [];
    for (const { location, path, reference, target } of this.pending) {
      if (this.firstByName.get(target.name)?.has(reference)) continue;
      const otherKind = [...this.firstByName].find(([, names]) => names.has(reference))?.[0];
      errors.push(
        otherKind === undefined
          ? new ManifestError(
              'unknown_reference',
              location,
              path,
              `no ${target.name} entry is named "${reference}" (and it is not ${referenceIdTitle(target)}, which starts with ${target.idPrefix})`,
            )
          : new ManifestError(
              'wrong_reference_kind',
              location,
              path,
              `"${reference}" is a ${otherKind} entry, not a ${target.name} entry`,
            ),
      );
    }
    this.pending.length = 0;
    return errors;
  }

  /**
   * An entry the schema rejected still has its values' rules run (sizes,
   * the kind's rules), so that an entry with a bad CIDR and a bad action
   * gets both lines at once instead of the second after the first is fixed.
   * What they say at or under a place the schema already reported is left
   * out (one mistake, one line); one at the entry itself only when the
   * schema reported the entry itself (a required field missing). A rule
   * that cannot read a value the schema rejected has nothing to add: it
   * stops there. References and unique items wait until the entry is valid.
   */
  private checkBesideSchema(entry: RawEntry, kind: Kind): ManifestError[] {
    const reported = entry.invalidAt.map((pointer) => ({ pointer, path: entryPath(entry, pointer) }));
    const alreadySaid = (error: ManifestError): boolean =>
      reported.some(({ pointer, path }) =>
        pointer === ''
          ? error.path === path
          : error.path === path || error.path.startsWith(`${path}.`) || error.path.startsWith(`${path}[`),
      );
    if (entry.invalidAt.includes('') && Object.keys(entry.value).length === 0) return [];
    const found: ManifestError[] = [];
    try {
      found.push(...checkMetadataAndDescription(entry, kind, this.owner));
      for (const problem of kind.checkEntry?.(entry.value) ?? [])
        found.push(entryProblemError(entry, problem));
    } catch {
      // The value is not of the shape the rule reads; the schema's lines say why.
    }
    return found.filter((error) => !alreadySaid(error));
  }

  private checkIdLikeName(entry: RawEntry): ManifestError[] {
    const prefix = idPrefixOf(entry.name, this.titles);
    if (prefix === undefined) return [];
    return [
      problem(
        'name_looks_like_id',
        entry,
        '',
        `name "${entry.name}" looks like ${this.titles.get(prefix) ?? 'an ID'} (prefix ${prefix}); values with an ID prefix are read as IDs, so pick another name, and adopt an existing resource with "id:"`,
      ),
    ];
  }

  private takeName(fact: NameFact): ManifestError | undefined {
    let names = this.firstByName.get(fact.kind);
    if (names === undefined) {
      names = new Map();
      this.firstByName.set(fact.kind, names);
    }
    const firstAt = names.get(fact.name);
    if (firstAt === undefined) {
      names.set(fact.name, fact.location);
      return undefined;
    }
    return new ManifestError(
      'duplicate_name',
      fact.location,
      fact.path,
      `${fact.kind} "${fact.name}" is also defined at ${firstAt.file}:${firstAt.line}:${firstAt.column}; names are unique per kind across all files`,
    );
  }

  /** One edge per hostport: a second entry claiming one is an error at its item, naming the first. */
  private takeItem(fact: ItemFact): ManifestError | undefined {
    const first = this.firstByItem.get(fact.key);
    if (first === undefined) {
      this.firstByItem.set(fact.key, fact);
      return undefined;
    }
    if (first.entry === fact.entry) return undefined;
    return new ManifestError(
      'duplicate_hostport',
      fact.location,
      fact.path,
      `${fact.item} is also claimed by ${first.entry} at ${first.location.file}:${first.location.line}:${first.location.column}; the service serves a hostport from one edge`,
    );
  }

  /**
   * Every reference field of the entry, in its fields, modules and route
   * modules: each value names an entry of the referenced kind, or is an ID
   * with that kind's prefix.
   */
  private checkReferences(entry: RawEntry, kind: Kind, pending: PendingReference[]): ManifestError[] {
    const errors: ManifestError[] = [];
    visitSpec(kind, entry.value, ({ rules, record, pointer }) => {
      if (record === undefined) return;
      for (const rule of rules) {
        const target = rule.references === undefined ? undefined : this.kindByName.get(rule.references);
        const value = record[rule.name];
        if (target === undefined || value === undefined) continue;
        const fieldPointer = `${pointer}/${rule.name}`;
        if (Array.isArray(value)) {
          value.forEach((item, index) => {
            errors.push(...this.checkReference(entry, `${fieldPointer}/${index}`, item, target, pending));
          });
        } else {
          errors.push(...this.checkReference(entry, fieldPointer, value, target, pending));
        }
      }
    });
    return errors;
  }

  private checkReference(
    entry: RawEntry,
    pointer: string,
    reference: unknown,
    target: Kind,
    pending: PendingReference[],
  ): ManifestError[] {
    if (typeof reference !== 'string') return [];
    const prefix = idPrefixOf(reference, this.titles);
    if (prefix === target.idPrefix) {
      if (ID_BODY.test(reference.slice(prefix.length))) return [];
      return [
        problem(
          'malformed_id',
          entry,
          pointer,
          `"${reference}" is not ${referenceIdTitle(target)}: after ${prefix} an ID has letters and digits only`,
        ),
      ];
    }
    if (prefix !== undefined) {
      return [
        problem(
          'wrong_reference_kind',
          entry,
          pointer,
          `"${reference}" is ${this.titles.get(prefix) ?? 'an ID of another kind'}; expected a ${target.name} entry name or ${referenceIdTitle(target)} (${target.idPrefix}…)`,
        ),
      ];
    }
    pending.push({
      location: entryLocation(entry, pointer),
      path: entryPath(entry, pointer),
      reference,
      target,
    });
    return [];
  }
}

function checkMetadataAndDescription(entry: RawEntry, kind: Kind, owner: string): ManifestError[] {
  const errors: ManifestError[] = [];
  const { description, metadata } = entry.value;
  if (typeof description === 'string') {
    const bytes = Buffer.byteLength(description, 'utf8');
    if (bytes > MAX_DESCRIPTION_BYTES) {
      errors.push(
        problem(
          'too_long',
          entry,
          '/description',
          `is ${bytes} bytes of UTF-8; at most ${MAX_DESCRIPTION_BYTES}`,
        ),
      );
    }
  }
  // Only resources edgesync owns carry metadata, and with it the ownership marker.
  if (kind.ownership !== 'metadata') return errors;
  const user = (metadata ?? {}) as Record<string, unknown>;
  if (Object.hasOwn(user, MARKER_KEY)) {
    errors.push(
      problem(
        'reserved_metadata_key',
        entry,
        `/metadata/${MARKER_KEY}`,
        `the key "${MARKER_KEY}" is reserved for the ownership marker edgesync writes; rename it`,
      ),
    );
    return errors;
  }
  // The marker alone is about 60 bytes and each character of name and owner at most 6 (`\u001f`):
  // only metadata the user writes, or a very long owner, can reach the limit (saves 100,000 encodings).
  if (metadata === undefined && 64 + 6 * (entry.name.length + owner.length) <= MAX_METADATA_BYTES)
    return errors;
  const sent = encodeMetadata(user, {
    name: entry.name,
    owner,
    ...(entry.value.protect === true ? { protect: true } : {}),
  });
  const bytes = Buffer.byteLength(sent, 'utf8');
  if (bytes > MAX_METADATA_BYTES) {
    errors.push(
      problem(
        'too_long',
        entry,
        metadata === undefined ? '' : '/metadata',
        `metadata is ${bytes} bytes as sent (compact JSON with the ownership marker); at most ${MAX_METADATA_BYTES}`,
      ),
    );
  }
  return errors;
}
