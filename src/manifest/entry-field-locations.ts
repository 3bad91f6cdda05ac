import type { ParsedManifest } from './parsed-manifest.js';
import type { SourceLocation } from './source-location.js';

/** Field locations of each entry of a file, keyed by the entry's pointer (`/kind/name`). */
export type FieldLocationsByEntry = ReadonlyMap<string, Readonly<Record<string, SourceLocation>>>;

/**
 * Groups a file's locations by the entry they fall in, in one pass, so that
 * looking up one entry's fields does not scan the whole file (which made
 * loading quadratic in the entries of a file). Keys of each record are
 * pointers relative to the entry (`/cidr`); the entry's own location and
 * the top-level keys belong to no entry and are left out.
 */
export function fieldLocationsByEntry(manifest: ParsedManifest): FieldLocationsByEntry {
  const byEntry = new Map<string, Record<string, SourceLocation>>();
  for (const [pointer, location] of manifest.locations) {
    const kindEnd = pointer.indexOf('/', 1);
    if (kindEnd === -1) continue;
    const entryEnd = pointer.indexOf('/', kindEnd + 1);
    if (entryEnd === -1) continue;
    const entryPointer = pointer.slice(0, entryEnd);
    let fields = byEntry.get(entryPointer);
    if (fields === undefined) {
      fields = {};
      byEntry.set(entryPointer, fields);
    }
    fields[pointer.slice(entryEnd)] = location;
  }
  return byEntry;
}

/** The pointer of the entry (`/kind/name`) a pointer lies in, or undefined above entry level. */
export function entryPointerOf(pointer: string): string | undefined {
  const kindEnd = pointer.indexOf('/', 1);
  if (kindEnd === -1) return undefined;
  const entryEnd = pointer.indexOf('/', kindEnd + 1);
  return entryEnd === -1 ? pointer : pointer.slice(0, entryEnd);
}
