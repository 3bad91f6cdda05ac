import type { SourceLocation } from './source-location.js';

/**
 * Where the values of one parsed manifest are written, compactly: character
 * offsets by JSON Pointer, and the file's line starts to turn an offset into
 * a line and column only when a message or an entry's field asks for one.
 * A SourceLocation object per value (half a million of them at 100,000
 * rules) was most of what parsing allocated and the garbage collector then
 * had to trace; numbers in typed arrays cost nothing to it.
 */
export interface FilePositions {
  /** The file as messages name it. */
  readonly file: string;
  /** Offset of the first character of each line, ascending (the `yaml` LineCounter's table). */
  readonly lineStarts: Int32Array;
  /**
   * Offset of every value, by JSON Pointer from the document root: the key
   * of a mapping member, the start of a sequence item, the document's start
   * for ''. Nothing below an alias is listed; look up the nearest ancestor.
   */
  readonly offsets: PointerOffsets;
}

/**
 * PointerOffsets as plain data, grouped by entry (`/kind/name`): what a
 * parsing worker sends (structured clone keeps no class). The fields of an
 * entry are pointers relative to it (`/cidr`), each distinct one held once
 * per file: a Map of every field's full pointer (`/ip_policy_rules/rule-7/cidr`)
 * was six long strings an entry to copy across threads, and to hash.
 */
export interface CompactOffsets {
  /** Pointers above entry level ('', '/version', '/ip_policy_rules'). */
  readonly top: ReadonlyMap<string, number>;
  /** Entry pointers in document order, each with its offset. */
  readonly entryPointers: readonly string[];
  readonly entryOffsets: Int32Array;
  /** The entry's fields are rows fieldStart[i] to fieldStart[i + 1] - 1. */
  readonly fieldStart: Int32Array;
  /** Each row's pointer relative to its entry, as an index into fieldNames, and its offset. */
  readonly fieldName: Int32Array;
  readonly fieldOffsets: Int32Array;
  readonly fieldNames: readonly string[];
}

/** The fields of one entry and where each is written: pointers relative to the entry (`/cidr`) and character offsets. */
export interface EntryFieldOffsets {
  readonly pointers: string[];
  readonly offsets: number[];
}

/**
 * Collects the offsets of a document's values as the parser walks it, depth
 * first: the walk says which level each value is at, so no pointer is
 * parsed back into its levels.
 */
export class PointerOffsetsBuilder {
  readonly #top = new Map<string, number>();
  readonly #entryPointers: string[] = [];
  readonly #entryOffsets: number[] = [];
  readonly #fieldStart: number[] = [];
  readonly #fieldName: number[] = [];
  readonly #fieldOffsets: number[] = [];
  readonly #fieldNames: string[] = [];
  readonly #nameIndex = new Map<string, number>();

  /** A value above entry level ('', '/version', '/ip_policy_rules'). */
  addTop(pointer: string, offset: number): void {
    this.#top.set(pointer, offset);
  }

  /** An entry (`/kind/name`): the fields added next are its own, until the next entry. */
  addEntry(pointer: string, offset: number): void {
    this.#fieldStart.push(this.#fieldName.length);
    this.#entryPointers.push(pointer);
    this.#entryOffsets.push(offset);
  }

  /** A field of the entry added last, by its pointer relative to the entry (`/cidr`). */
  addField(relative: string, offset: number): void {
    let name = this.#nameIndex.get(relative);
    if (name === undefined) {
      name = this.#fieldNames.length;
      this.#fieldNames.push(relative);
      this.#nameIndex.set(relative, name);
    }
    this.#fieldName.push(name);
    this.#fieldOffsets.push(offset);
  }

  build(): PointerOffsets {
    return new PointerOffsets({
      top: this.#top,
      entryPointers: this.#entryPointers,
      entryOffsets: Int32Array.from(this.#entryOffsets),
      fieldStart: Int32Array.from([...this.#fieldStart, this.#fieldName.length]),
      fieldName: Int32Array.from(this.#fieldName),
      fieldOffsets: Int32Array.from(this.#fieldOffsets),
      fieldNames: this.#fieldNames,
    });
  }
}

/** A file's offsets by JSON Pointer (CompactOffsets), looked up by pointer or listed by entry. */
export class PointerOffsets {
  readonly compact: CompactOffsets;
  #entryIndex: Map<string, number> | undefined;
  #nameIndex: Map<string, number> | undefined;

  constructor(compact: CompactOffsets) {
    this.compact = compact;
  }

  get(pointer: string): number | undefined {
    const { top, entryOffsets, fieldStart, fieldName, fieldOffsets } = this.compact;
    const found = top.get(pointer);
    if (found !== undefined) return found;
    const kindEnd = pointer.indexOf('/', 1);
    if (kindEnd === -1) return undefined;
    const entryEnd = pointer.indexOf('/', kindEnd + 1);
    const entry = this.#entryOf(entryEnd === -1 ? pointer : pointer.slice(0, entryEnd));
    if (entry === undefined) return undefined;
    if (entryEnd === -1) return entryOffsets[entry];
    this.#nameIndex ??= new Map(this.compact.fieldNames.map((name, index) => [name, index]));
    const name = this.#nameIndex.get(pointer.slice(entryEnd));
    if (name === undefined) return undefined;
    const end = fieldStart[entry + 1] as number;
    for (let row = fieldStart[entry] as number; row < end; row += 1) {
      if (fieldName[row] === name) return fieldOffsets[row];
    }
    return undefined;
  }

  /** The fields of the entry at `entryPointer`, in new arrays the caller may append to; undefined for an unknown entry. */
  fieldsOf(entryPointer: string): EntryFieldOffsets | undefined {
    const entry = this.#entryOf(entryPointer);
    if (entry === undefined) return undefined;
    const { fieldStart, fieldName, fieldOffsets, fieldNames } = this.compact;
    const pointers: string[] = [];
    const offsets: number[] = [];
    const end = fieldStart[entry + 1] as number;
    for (let row = fieldStart[entry] as number; row < end; row += 1) {
      pointers.push(fieldNames[fieldName[row] as number] as string);
      offsets.push(fieldOffsets[row] as number);
    }
    return { pointers, offsets };
  }

  #entryOf(entryPointer: string): number | undefined {
    if (this.#entryIndex === undefined) {
      this.#entryIndex = new Map();
      for (const [index, pointer] of this.compact.entryPointers.entries()) {
        // A duplicate entry is a parse error; the first is the one written down.
        if (!this.#entryIndex.has(pointer)) this.#entryIndex.set(pointer, index);
      }
    }
    return this.#entryIndex.get(entryPointer);
  }
}

/**
 * The 1-based line and column of a character offset, exactly as the `yaml`
 * package's LineCounter.linePos computes them (so messages keep the
 * positions they always had).
 */
export function positionAt(file: string, lineStarts: Int32Array, offset: number): SourceLocation {
  const low = lineIndexAt(lineStarts, offset);
  return { file, line: lineOf(lineStarts, low, offset), column: columnOf(lineStarts, low, offset) };
}

/** The first line start at or after `offset` (binary search): what positionAt's line and column derive from. */
export function lineIndexAt(lineStarts: Int32Array, offset: number): number {
  let low = 0;
  let high = lineStarts.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((lineStarts[mid] as number) < offset) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** positionAt's line, from lineIndexAt. */
export function lineOf(lineStarts: Int32Array, low: number, offset: number): number {
  if (lineStarts[low] === offset) return low + 1;
  return low;
}

/** positionAt's column, from lineIndexAt. */
export function columnOf(lineStarts: Int32Array, low: number, offset: number): number {
  if (lineStarts[low] === offset) return 1;
  if (low === 0) return offset;
  return offset - (lineStarts[low - 1] as number) + 1;
}

/** The location of `pointer`, or of its nearest ancestor that has one (values under an alias have none). */
export function locationIn(positions: FilePositions, pointer: string): SourceLocation {
  let current = pointer;
  for (;;) {
    const found = positions.offsets.get(current);
    if (found !== undefined) return positionAt(positions.file, positions.lineStarts, found);
    if (current === '') return { file: positions.file, line: 1, column: 1 };
    current = current.slice(0, current.lastIndexOf('/'));
  }
}
