import { idPrefixOf, idPrefixTitles, referenceIdTitle } from '../kinds/id-titles.js';
import type { EntryProblem, Kind } from '../kinds/kind.js';
import { encodeMetadata, MARKER_KEY } from '../kinds/ownership-marker.js';
import { KINDS } from '../kinds/registry.js';
import { visitSpec } from '../kinds/visit-spec.js';
import { ManifestError, type ManifestErrorCode } from './manifest-error.js';
import { entryLocation, entryPath, type RawEntry } from './raw-entry.js';

export const MAX_DESCRIPTION_BYTES = 255;
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

/**
 * The checks the schema cannot express, over every entry of every file:
 * names (unique per kind, not ID-like), references between entries, and the
 * spec's rules on values. Entries the schema rejected only take part in the
 * name checks, so one mistake is not reported twice.
 */
export function checkEntries(
  entries: readonly RawEntry[],
  owner: string,
  kinds: readonly Kind[] = KINDS,
): ManifestError[] {
  const kindByName = new Map(kinds.map((kind) => [kind.name as string, kind]));
  const titles = idPrefixTitles(kinds);
  const errors: ManifestError[] = [];
  errors.push(...checkNames(entries, titles));
  const namesByKind = new Map<string, Set<string>>();
  for (const entry of entries) {
    const names = namesByKind.get(entry.kind) ?? new Set<string>();
    names.add(entry.name);
    namesByKind.set(entry.kind, names);
  }
  for (const entry of entries) {
    const kind = kindByName.get(entry.kind);
    if (!entry.valid || kind === undefined) continue;
    errors.push(...checkMetadataAndDescription(entry, kind, owner));
    for (const found of kind.checkEntry?.(entry.value) ?? []) errors.push(entryProblemError(entry, found));
    errors.push(...checkReferences(entry, kind, { namesByKind, kindByName, titles }));
  }
  return errors;
}

function checkNames(entries: readonly RawEntry[], titles: ReadonlyMap<string, string>): ManifestError[] {
  const errors: ManifestError[] = [];
  const firstByKey = new Map<string, RawEntry>();
  for (const entry of entries) {
    const prefix = idPrefixOf(entry.name, titles);
    if (prefix !== undefined) {
      errors.push(
        problem(
          'name_looks_like_id',
          entry,
          '',
          `name "${entry.name}" looks like ${titles.get(prefix) ?? 'an ID'} (prefix ${prefix}); values with an ID prefix are read as IDs, so pick another name, and adopt an existing resource with "id:"`,
        ),
      );
    }
    const key = `${entry.kind}\u0000${entry.name}`;
    const first = firstByKey.get(key);
    if (first === undefined) {
      firstByKey.set(key, entry);
      continue;
    }
    const firstAt = entryLocation(first);
    errors.push(
      problem(
        'duplicate_name',
        entry,
        '',
        `${entry.kind} "${entry.name}" is also defined at ${firstAt.file}:${firstAt.line}:${firstAt.column}; names are unique per kind across all files`,
      ),
    );
  }
  return errors;
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

interface ReferenceContext {
  readonly namesByKind: ReadonlyMap<string, ReadonlySet<string>>;
  readonly kindByName: ReadonlyMap<string, Kind>;
  readonly titles: ReadonlyMap<string, string>;
}

/**
 * Every reference field of the entry, in its fields, modules and route
 * modules: each value names an entry of the referenced kind, or is an ID
 * with that kind's prefix.
 */
function checkReferences(entry: RawEntry, kind: Kind, context: ReferenceContext): ManifestError[] {
  const errors: ManifestError[] = [];
  visitSpec(kind, entry.value, ({ rules, record, pointer }) => {
    if (record === undefined) return;
    for (const rule of rules) {
      const target = rule.references === undefined ? undefined : context.kindByName.get(rule.references);
      const value = record[rule.name];
      if (target === undefined || value === undefined) continue;
      const fieldPointer = `${pointer}/${rule.name}`;
      if (Array.isArray(value)) {
        value.forEach((item, index) => {
          errors.push(...checkReference(entry, `${fieldPointer}/${index}`, item, target, context));
        });
      } else {
        errors.push(...checkReference(entry, fieldPointer, value, target, context));
      }
    }
  });
  return errors;
}

function checkReference(
  entry: RawEntry,
  pointer: string,
  reference: unknown,
  target: Kind,
  { namesByKind, titles }: ReferenceContext,
): ManifestError[] {
  if (typeof reference !== 'string') return [];
  const prefix = idPrefixOf(reference, titles);
  if (prefix === target.idPrefix) return [];
  const idTitle = referenceIdTitle(target);
  if (prefix !== undefined) {
    return [
      problem(
        'wrong_reference_kind',
        entry,
        pointer,
        `"${reference}" is ${titles.get(prefix) ?? 'an ID of another kind'}; expected a ${target.name} entry name or ${idTitle} (${target.idPrefix}…)`,
      ),
    ];
  }
  if (namesByKind.get(target.name)?.has(reference)) return [];
  const otherKind = [...namesByKind].find(([, names]) => names.has(reference))?.[0];
  return [
    otherKind === undefined
      ? problem(
          'unknown_reference',
          entry,
          pointer,
          `no ${target.name} entry is named "${reference}" (and it is not ${idTitle}, which starts with ${target.idPrefix})`,
        )
      : problem(
          'wrong_reference_kind',
          entry,
          pointer,
          `"${reference}" is a ${otherKind} entry, not a ${target.name} entry`,
        ),
  ];
}
