import type { KindName } from '../kinds/kind-name.js';
import type { DesiredEntry } from './desired-state.js';
import { columnOf, lineIndexAt, lineOf } from './file-positions.js';
import type { SourceLocation } from './source-location.js';

/**
 * The line and column of every field of one file's entries, in two typed
 * arrays: what the loader keeps of a file's positions once its document is
 * dropped. Rows are appended while the file's entries are built, then sealed.
 */
export class FieldPositionTable {
  readonly file: string;
  private lines: number[] | SealedNumbers = [];
  private columns: number[] | SealedNumbers = [];

  constructor(file: string) {
    this.file = file;
  }

  /** Appends the row of a character offset (as positionAt places it, without its object); returns its index. */
  addOffset(lineStarts: Int32Array, offset: number): number {
    const low = lineIndexAt(lineStarts, offset);
    return this.addPosition(lineOf(lineStarts, low, offset), columnOf(lineStarts, low, offset));
  }

  /** Appends the row of a line and column; returns its index. */
  addPosition(line: number, column: number): number {
    const lines = this.lines as number[];
    lines.push(line);
    (this.columns as number[]).push(column);
    return lines.length - 1;
  }

  /** Ends appending: the rows move into typed arrays (2 or 4 bytes a number instead of a tagged slot each). */
  seal(): void {
    this.lines = sealed(this.lines as number[]);
    this.columns = sealed(this.columns as number[]);
  }

  at(row: number): SourceLocation {
    return { file: this.file, line: this.lines[row] ?? 1, column: this.columns[row] ?? 1 };
  }
}

type SealedNumbers = Uint16Array | Int32Array;

/** The narrowest typed array that holds every one of `values` (positive): 16 bits for the lines of a file under 65,536 lines. */
function sealed(values: readonly number[]): SealedNumbers {
  return values.every((value) => value <= 0xffff) ? Uint16Array.from(values) : Int32Array.from(values);
}

/**
 * The lists of field pointers of the entries, one shared array per distinct
 * list: 100,000 rules written alike hold one array of `/cidr`, `/action`, …
 * between them instead of one each.
 */
export class FieldPointerLists {
  private readonly lists = new Map<string, readonly string[]>();
  /** The list shared last: entries written alike follow one another, and need no key joined to find it. */
  private last: readonly string[] = Object.freeze([]);

  shared(pointers: readonly string[]): readonly string[] {
    if (sameList(this.last, pointers)) return this.last;
    this.last = this.lookUp(pointers);
    return this.last;
  }

  private lookUp(pointers: readonly string[]): readonly string[] {
    const key = pointers.join('\u0000');
    const found = this.lists.get(key);
    // A pointer holding NUL could make two lists join alike: compare before sharing.
    if (found !== undefined && sameList(found, pointers)) return found;
    const list = Object.freeze([...pointers]);
    if (found === undefined) this.lists.set(key, list);
    return list;
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/** Everything a DesiredEntry holds but the locations, which the table keeps. */
export type LoadedEntryFields = Omit<DesiredEntry, 'location' | 'fieldLocations'>;

/**
 * A DesiredEntry as the loader builds it. Its locations are not kept as an
 * object each (about 250 bytes an entry, most of what an entry cost beyond
 * its spec) but as rows of its file's FieldPositionTable: the entry's own at
 * `row`, its fields' in the rows after it. `location` is built when first
 * read and then kept (the planner holds it as the source of each change of
 * the entry, so one object serves them all); a no-op entry never builds it.
 * `fieldLocations` builds the record on each read: rarely, and only for
 * messages. Nothing copies entries (no spread, no structuredClone), so the
 * getters on the prototype are always there.
 */
export class LoadedEntry implements DesiredEntry {
  readonly kind: KindName;
  readonly name: string;
  declare readonly id?: string;
  readonly protect: boolean;
  readonly spec: Readonly<Record<string, unknown>>;
  readonly #table: FieldPositionTable;
  readonly #pointers: readonly string[];
  readonly #row: number;
  #location: SourceLocation | undefined;

  constructor(
    fields: LoadedEntryFields,
    table: FieldPositionTable,
    pointers: readonly string[],
    row: number,
  ) {
    this.kind = fields.kind;
    this.name = fields.name;
    if (fields.id !== undefined) (this as { id?: string }).id = fields.id;
    this.protect = fields.protect;
    this.spec = fields.spec;
    this.#table = table;
    this.#pointers = pointers;
    this.#row = row;
  }

  get location(): SourceLocation {
    this.#location ??= this.#table.at(this.#row);
    return this.#location;
  }

  get fieldLocations(): Readonly<Record<string, SourceLocation>> {
    const locations: Record<string, SourceLocation> = {};
    for (const [index, pointer] of this.#pointers.entries()) {
      locations[pointer] = this.#table.at(this.#row + 1 + index);
    }
    return locations;
  }
}
