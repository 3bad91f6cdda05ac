import type { FilePositions } from './file-positions.js';

/** The fields of one entry and where each is written: pointers relative to the entry (`/cidr`) and character offsets. */
export interface EntryFieldOffsets {
  readonly pointers: string[];
  readonly offsets: number[];
}

/**
 * Groups a file's positions by the entry they fall in, in one pass, so that
 * looking up one entry's fields does not scan the whole file (which made
 * loading quadratic in the entries of a file). The entry's own position and
 * the top-level keys belong to no entry and are left out.
 */
export function fieldOffsetsByEntry(positions: FilePositions): Map<string, EntryFieldOffsets> {
  const byEntry = new Map<string, EntryFieldOffsets>();
  for (const [pointer, offset] of positions.offsets) {
    const kindEnd = pointer.indexOf('/', 1);
    if (kindEnd === -1) continue;
    const entryEnd = pointer.indexOf('/', kindEnd + 1);
    if (entryEnd === -1) continue;
    const entryPointer = pointer.slice(0, entryEnd);
    let fields = byEntry.get(entryPointer);
    if (fields === undefined) {
      fields = { pointers: [], offsets: [] };
      byEntry.set(entryPointer, fields);
    }
    fields.pointers.push(pointer.slice(entryEnd));
    fields.offsets.push(offset);
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
