import type { SourceLocation } from './source-location.js';

/**
 * Where the values of one parsed manifest are written, compactly: character
 * offsets by JSON Pointer, and the file's line starts to turn an offset into
 * a line and column only when a message or an entry's field asks for one.
 * A SourceLocation object per value (half a million of them at 100,000
 * rules) was most of what parsing allocated and the garbage collector then
 * had to trace; numbers in a Map cost nothing to it.
 */
export interface FilePositions {
  /** The file as messages name it. */
  readonly file: string;
  /** Offset of the first character of each line, ascending (the `yaml` LineCounter's table). */
  readonly lineStarts: Int32Array;
  /**
   * Offset of every value, keyed by JSON Pointer from the document root: the
   * key of a mapping member, the start of a sequence item, the document's
   * start for ''. Nothing below an alias is listed; look up the nearest ancestor.
   */
  readonly offsets: ReadonlyMap<string, number>;
}

/**
 * The 1-based line and column of a character offset, exactly as the `yaml`
 * package's LineCounter.linePos computes them (so messages keep the
 * positions they always had).
 */
export function positionAt(file: string, lineStarts: Int32Array, offset: number): SourceLocation {
  let low = 0;
  let high = lineStarts.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((lineStarts[mid] as number) < offset) low = mid + 1;
    else high = mid;
  }
  if (lineStarts[low] === offset) return { file, line: low + 1, column: 1 };
  if (low === 0) return { file, line: 0, column: offset };
  return { file, line: low, column: offset - (lineStarts[low - 1] as number) + 1 };
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
