/**
 * Reads a JSON document given in pieces and hands over the elements of the
 * arrays at some paths (`plan.changes`) one at a time, each parsed alone; the
 * rest of the document is kept as text with those arrays left empty, and
 * parsed at the end. A saved plan of 100,000 changes is a 200 MB file: read
 * whole, it was one string, then one parsed tree next to the plan made of it
 * (734 MB peak, docs/performance.md); read this way, each element is garbage as soon as
 * it is converted.
 *
 * Paths name object keys from the top (`['plan', 'changes']`). What is not
 * JSON throws a SyntaxError: from the scan (a stray separator or bracket in a
 * split array, a path given twice), from an element's parse, or from the
 * rest's parse at `end`. What is JSON but beyond the reader's limits (nesting,
 * an element's or the rest's length) throws a JsonLimitError as soon as the
 * scan reaches it, before anything of it is parsed: the text may come from
 * anyone, and what reads the values afterwards walks them recursively.
 */
export class JsonArrayElements {
  readonly #paths: readonly (readonly string[])[];
  readonly #onElement: ((path: number, index: number, value: unknown) => void) | undefined;
  readonly #skipped: ReadonlySet<number>;
  readonly #limits: Required<JsonLimits>;
  readonly #deepestPath: number;
  /** Characters of the rest so far, and of the element being read. */
  #restChars = 0;
  #elementChars = 0;

  /** Open containers, outermost first: true for an object. */
  readonly #objects: boolean[] = [];
  /** For each open container, the key whose value is being read (objects on a path only). */
  readonly #keys: (string | undefined)[] = [];
  #inString = false;
  #escaped = false;
  /** The raw text of the string being read, when it may be a key on a path; where it starts in this piece. */
  #keyPieces: string[] | undefined;
  #keyFrom = 0;
  /** A string just read that becomes the key if a `:` follows. */
  #candidateKey: string | undefined;

  /** The rest of the document, split arrays empty. */
  readonly #rest: string[] = [];
  /** The array being split, while inside it. */
  #split: SplitArray | undefined;
  /** Paths already split: a second array at one path (a repeated key) is refused. */
  readonly #splitPaths = new Set<number>();

  /**
   * Without `onElement`, the elements are skipped unparsed: only the rest is
   * read; with it, the elements of the paths in `options.skip` are skipped.
   */
  constructor(
    paths: readonly (readonly string[])[],
    onElement?: (path: number, index: number, value: unknown) => void,
    options: { readonly skip?: readonly number[]; readonly limits?: JsonLimits } = {},
  ) {
    this.#paths = paths;
    this.#onElement = onElement;
    this.#skipped = new Set(options.skip ?? []);
    this.#limits = { ...NO_LIMITS, ...options.limits };
    this.#deepestPath = Math.max(0, ...paths.map((path) => path.length));
  }

  push(text: string): void {
    // Text from `from` on goes to the rest, or to the element being read, when the piece ends or the mode changes.
    let from = 0;
    for (let at = 0; at < text.length; at += 1) {
      const code = text.charCodeAt(at);
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (code === BACKSLASH) this.#escaped = true;
        else if (code === QUOTE) {
          this.#inString = false;
          if (this.#keyPieces !== undefined) {
            this.#keyPieces.push(text.slice(this.#keyFrom, at));
            this.#candidateKey = JSON.parse(`"${this.#keyPieces.join('')}"`) as string;
            this.#keyPieces = undefined;
          }
        }
        continue;
      }
      const split = this.#split;
      const atSplitLevel = split !== undefined && this.#objects.length === split.depth;
      switch (code) {
        case QUOTE:
          this.#inString = true;
          if (split === undefined && this.#mayBeKeyOnPath()) {
            this.#keyPieces = [];
            this.#keyFrom = at + 1;
          }
          break;
        case COLON:
          if (this.#candidateKey !== undefined && this.#objects.at(-1) === true)
            this.#keys[this.#keys.length - 1] = this.#candidateKey;
          this.#candidateKey = undefined;
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET: {
          this.#candidateKey = undefined;
          const path = split === undefined && code === OPEN_BRACKET ? this.#pathOpening() : -1;
          if (this.#objects.length >= this.#limits.maxDepth) {
            throw new JsonLimitError(
              `nested deeper than ${this.#limits.maxDepth} levels${split === undefined ? '' : ` in ${this.#elementText(split)}`}`,
            );
          }
          this.#objects.push(code === OPEN_BRACE);
          this.#keys.push(undefined);
          if (path === -1) break;
          if (this.#splitPaths.has(path)) throw new SyntaxError(`${this.#pathText(path)} is given twice`);
          this.#splitPaths.add(path);
          this.#keepRest(text.slice(from, at + 1));
          from = at + 1;
          this.#elementChars = 0;
          this.#split = { path, depth: this.#objects.length, index: 0, pieces: [] };
          break;
        }
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          this.#candidateKey = undefined;
          if (split !== undefined && atSplitLevel) {
            if (code === CLOSE_BRACE) throw new SyntaxError(`a } closes ${this.#pathText(split.path)}`);
            this.#keepElement(split, text.slice(from, at));
            this.#element(split, true);
            from = at;
            this.#split = undefined;
          }
          if (this.#objects.pop() === undefined) throw new SyntaxError(`a ${text[at]} closes nothing`);
          this.#keys.pop();
          break;
        case COMMA:
          this.#candidateKey = undefined;
          if (split !== undefined && atSplitLevel) {
            this.#keepElement(split, text.slice(from, at));
            this.#element(split, false);
            from = at + 1;
          }
          break;
      }
    }
    if (this.#keyPieces !== undefined) {
      this.#keyPieces.push(text.slice(this.#keyFrom));
      this.#keyFrom = 0;
    }
    if (this.#split === undefined) this.#keepRest(text.slice(from));
    else this.#keepElement(this.#split, text.slice(from));
  }

  #keepRest(piece: string): void {
    this.#restChars += piece.length;
    if (this.#restChars > this.#limits.maxRestChars) {
      throw new JsonLimitError(
        `longer than ${this.#limits.maxRestChars} characters besides ${this.#paths.map((path) => path.join('.')).join(' and ')}`,
      );
    }
    this.#rest.push(piece);
  }

  #keepElement(split: SplitArray, piece: string): void {
    this.#elementChars += piece.length;
    if (this.#elementChars > this.#limits.maxElementChars) {
      throw new JsonLimitError(
        `${this.#elementText(split)} is longer than ${this.#limits.maxElementChars} characters`,
      );
    }
    // A skipped element is never parsed: its text need not be kept either.
    if (this.#onElement !== undefined && !this.#skipped.has(split.path)) split.pieces.push(piece);
    else if (split.pieces.length === 0 && piece.trim() !== '') split.pieces.push('0');
  }

  #elementText(split: SplitArray): string {
    return `${this.#pathText(split.path)}[${split.index}]`;
  }

  /** The document without the split arrays' elements, parsed. */
  end(): unknown {
    if (this.#inString || this.#objects.length > 0) throw new SyntaxError('the JSON text ends early');
    return JSON.parse(this.#rest.join(''));
  }

  /** Whether a string read here may be a key that a path goes through. */
  #mayBeKeyOnPath(): boolean {
    const depth = this.#objects.length;
    if (depth === 0 || depth > this.#deepestPath || this.#objects[depth - 1] !== true) return false;
    return this.#paths.some(
      (path) => path.length >= depth && this.#keys.every((key, at) => at === depth - 1 || key === path[at]),
    );
  }

  /** The path whose array an `[` here opens, or -1. */
  #pathOpening(): number {
    const depth = this.#objects.length;
    if (depth === 0 || this.#objects[depth - 1] !== true) return -1;
    return this.#paths.findIndex(
      (path) => path.length === depth && this.#keys.every((key, at) => key === path[at]),
    );
  }

  /** Parses and hands over the element read since the last separator; `last` when `]` follows it. */
  #element(split: SplitArray, last: boolean): void {
    const text = split.pieces.join('');
    split.pieces = [];
    this.#elementChars = 0;
    if (text.trim() === '') {
      // `[]` is empty; `[,`, `,,` and `,]` are not JSON.
      if (last && split.index === 0) return;
      throw new SyntaxError(`an element of ${this.#pathText(split.path)} is missing`);
    }
    if (this.#onElement !== undefined && !this.#skipped.has(split.path))
      this.#onElement(split.path, split.index, JSON.parse(text));
    split.index += 1;
  }

  #pathText(path: number): string {
    return this.#paths[path]?.join('.') ?? '';
  }
}

/** Bounds on what a JsonArrayElements reads; each is unbounded unless given. */
export interface JsonLimits {
  /** Containers open at once, the document's own included. */
  readonly maxDepth?: number;
  /** Characters of one element of a split array. */
  readonly maxElementChars?: number;
  /** Characters of the document without the split arrays' elements. */
  readonly maxRestChars?: number;
}

const NO_LIMITS: Required<JsonLimits> = {
  maxDepth: Number.POSITIVE_INFINITY,
  maxElementChars: Number.POSITIVE_INFINITY,
  maxRestChars: Number.POSITIVE_INFINITY,
};

/** JSON that is beyond a reader's limits (JsonLimits); the message says which. */
export class JsonLimitError extends Error {
  override readonly name = 'JsonLimitError';
}

interface SplitArray {
  /** Which of the paths. */
  readonly path: number;
  /** How many containers are open inside it (itself included): its elements' separators are at this depth. */
  readonly depth: number;
  index: number;
  /** The text of the element being read. */
  pieces: string[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
