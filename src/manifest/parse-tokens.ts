import { type CST, Lexer, Parser } from 'yaml';

/**
 * How many times the nesting limit the `yaml` Parser's stack (the document,
 * one entry per open collection, and at most one scalar) may grow before
 * the text is given up as runaway nesting. Below it the walks report
 * `too_deep` themselves, with the path; above it the Composer's recursion
 * would overflow the call stack (100,000 nested flow sequences: "Maximum
 * call stack size exceeded") or the Parser's stack would fill the parsing
 * worker's heap (100,000 nested flow mappings in 500 KB).
 */
const RUNAWAY_FACTOR = 4;

const COLLECTIONS: ReadonlySet<string> = new Set(['block-map', 'block-seq', 'flow-collection']);

/**
 * The `yaml` Parser's tokens of `text`, as `new Parser(onNewLine).parse(text)`
 * yields them, except that they stop early when the open collections run
 * away (RUNAWAY_FACTOR times `maxDepth`): `runawayAt` then holds the offset
 * of the first collection nested deeper than `maxDepth` (the root mapping is
 * at depth 1), where the walks would report `too_deep`.
 */
export class ParseTokens {
  #runawayAt: number | undefined;
  readonly #maxDepth: number;

  constructor(maxDepth: number) {
    this.#maxDepth = maxDepth;
  }

  /** Where the nesting ran away, once `tokens` has stopped because of it; else undefined. */
  get runawayAt(): number | undefined {
    return this.#runawayAt;
  }

  *tokens(text: string, onNewLine?: (offset: number) => void): Generator<CST.Token> {
    const parser = new Parser(onNewLine);
    // What Parser.parse does first: the first line starts at 0.
    onNewLine?.(0);
    const most = RUNAWAY_FACTOR * this.#maxDepth;
    for (const lexeme of new Lexer().lex(text)) {
      yield* parser.next(lexeme);
      if (parser.stack.length > most) {
        this.#runawayAt = this.#deepest(parser.stack, parser.offset);
        return;
      }
    }
    yield* parser.end();
  }

  /** The offset of the collection at depth `maxDepth + 1` on the Parser's stack. */
  #deepest(stack: readonly CST.Token[], fallback: number): number {
    let depth = 0;
    for (const token of stack) {
      if (!COLLECTIONS.has(token.type)) continue;
      depth += 1;
      if (depth > this.#maxDepth) return (token as { offset: number }).offset;
    }
    return fallback;
  }
}
