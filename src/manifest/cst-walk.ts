/**
 * Builds a manifest's plain data and field offsets straight from the `yaml`
 * package's concrete syntax tree (its Parser's tokens), skipping the
 * Composer. The Composer's Document (a Scalar, Pair or YAMLMap with ranges
 * for every value) was most of what loading allocated and then threw away:
 * the data and the offsets are all a manifest needs of it.
 *
 * It is a fast path, not a second YAML implementation: it accepts only what
 * it fully understands and answers exactly what composing the document and
 * walking it (parse-manifest-file.ts) answers for such a file — the same
 * values, key order and offsets. Anything else it refuses (undefined), and
 * the caller composes the document as before, errors and all. Refused:
 * a tab anywhere in the text; any error token; directives, `...`, more than
 * one document, a root that is not a block mapping; anchors, aliases, tags,
 * explicit `?` keys; flow collections other than one-line `[a, b]` and
 * `{k: v}` of scalars; keys that are not one-line plain or quoted scalars,
 * or not at their mapping's column; a duplicate key;
 * nesting deeper than the caller's limit; and every condition under which
 * the Composer (yaml/dist/compose, with `strict: true`) reports an error for
 * the tokens it does accept: a comment not preceded by white space, a
 * missing `:` or `-`, a compact nested mapping, a key more than 1024
 * characters before its `:`, a plain scalar starting with an indicator,
 * an unterminated quote or bad escape, a bad block scalar header or indent.
 * An empty block collection (which the Parser does not produce) is refused
 * too rather than reasoned about.
 */
import { CST, type LineCounter } from 'yaml';
import { pointerToken } from '../json-pointer.js';
import { type PointerOffsets, PointerOffsetsBuilder } from './file-positions.js';
import { ParseTokens } from './parse-tokens.js';

/** A manifest read from its tokens: the data and the offset of every value, as the composed walk records them. */
export interface CstManifest {
  readonly data: Record<string, unknown>;
  readonly offsets: PointerOffsets;
}

/** Nesting that ran away (ParseTokens): the offset of the first collection deeper than the limit. */
export interface CstRunaway {
  readonly runawayAt: number;
}

/**
 * Parses `text` with the line starts going to `lineCounter`; undefined when
 * the text is not in the subset this path handles (see the module comment),
 * in which case `lineCounter` may be incomplete and the caller starts over;
 * `runawayAt` when its nesting runs away, which composing it would not
 * survive either. `maxDepth` is the composed walk's nesting limit (the root
 * mapping is at 1).
 */
export function walkManifestCst(
  text: string,
  lineCounter: LineCounter,
  maxDepth: number,
): CstManifest | CstRunaway | undefined {
  if (text.includes('\t')) return undefined;
  let document: CST.Document | undefined;
  const parse = new ParseTokens(maxDepth);
  for (const token of parse.tokens(text, lineCounter.addNewLine)) {
    switch (token.type) {
      case 'byte-order-mark':
      case 'space':
      case 'comment':
      case 'newline':
        break;
      case 'document':
        if (document !== undefined) return undefined;
        document = token;
        break;
      default:
        return undefined;
    }
  }
  if (parse.runawayAt !== undefined) return { runawayAt: parse.runawayAt };
  const root = document?.value;
  if (document === undefined || root?.type !== 'block-map') return undefined;
  try {
    const walk = new CstWalk(maxDepth);
    walk.documentStart(document.start, document.offset);
    walk.documentEnd(document.end);
    const data = walk.root(root);
    return { data, offsets: walk.offsets.build() };
  } catch (error) {
    if (error === REFUSED) return undefined;
    throw error;
  }
}

/** Thrown from anywhere in the walk when the document leaves the subset; caught in walkManifestCst. */
const REFUSED = new Error('outside the subset the CST walk handles');

function refuse(): never {
  throw REFUSED;
}

/** The Composer's limit on how far before its `:` an implicit key may start (strict mode). */
const MAX_IMPLICIT_KEY_SPAN = 1024;

/** Characters a plain scalar may not start with (the Composer's BAD_SCALAR_START); a tab is refused earlier. */
const BAD_PLAIN_START = new Set([',', '%', '|', '>', '@', '`']);

/**
 * One depth-first walk that mirrors DocumentWalk in parse-manifest-file.ts
 * over the Composer's nodes: the same offsets recorded in the same order,
 * the same data. It tracks where the Composer would be (`#end`, a node's
 * `range[2]`) because two of the Composer's checks depend on it.
 */
class CstWalk {
  readonly offsets = new PointerOffsetsBuilder();
  readonly #maxDepth: number;
  /** Where the node walked last ends, comments and white space after it included: the Composer's `range[2]`. */
  #end = 0;
  /** Set by #props: the offset of the indicator found, or -1. */
  #indicator = -1;
  /** Set by #props: whether the tokens hold a newline, and a comment. */
  #hasNewline = false;
  #hasComment = false;

  constructor(maxDepth: number) {
    this.#maxDepth = maxDepth;
  }

  /** The document's `---` line and the comments before its content (the Composer's resolveProps, doc-start). */
  documentStart(start: readonly CST.SourceToken[], offset: number): void {
    this.#props(start, 'doc-start', true, offset);
    // The root is a block mapping: it may not start on the `---` line.
    if (this.#indicator !== -1 && !this.#hasNewline) refuse();
  }

  /** What follows the document's content: white space and comments only. */
  documentEnd(end: readonly CST.SourceToken[] | undefined): void {
    for (const token of end ?? []) {
      if (token.type !== 'space' && token.type !== 'comment' && token.type !== 'newline') refuse();
    }
  }

  root(map: CST.BlockMap): Record<string, unknown> {
    this.offsets.addTop('', map.offset);
    return this.#map(map, 1, '');
  }

  /** A node at `depth` whose JSON Pointer is `pointer` (relative to its entry below entry level, as in DocumentWalk). */
  #node(token: CST.Token, depth: number, pointer: string): unknown {
    switch (token.type) {
      case 'scalar':
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
      case 'block-scalar':
        return this.#scalar(token);
      case 'block-map':
        return this.#map(token, depth, pointer);
      case 'block-seq':
        return this.#seq(token, depth, pointer);
      case 'flow-collection':
        return this.#flow(token, depth, pointer);
      default:
        return refuse();
    }
  }

  /** The Composer's resolveBlockMap, for implicit one-line scalar keys only. */
  #map(map: CST.BlockMap, depth: number, pointer: string): Record<string, unknown> {
    if (depth > this.#maxDepth) refuse();
    const record: Record<string, unknown> = {};
    const seen = new Set<string>();
    let offset = map.offset;
    let commentEnd: number | undefined;
    for (const { start, key, sep, value } of map.items) {
      const keyStart = this.#props(start, undefined, true, offset);
      if (sep === undefined) {
        // Comments after the last member: the Composer keeps them as the map's comment.
        if (key !== undefined || value !== undefined) refuse();
        commentEnd = keyStart;
        continue;
      }
      if (!isFlowScalar(key) || key.indent !== map.indent) refuse();
      if (key.source.includes('\n') || key.end?.some((token) => token.type === 'newline')) refuse();
      const keyOffset = key.offset;
      const keyValue = this.#scalar(key);
      const sepEnd = this.#props(sep, 'map-value-ind', false, this.#end);
      const colon = this.#indicator;
      if (colon === -1) refuse();
      if (value?.type === 'block-map' && !this.#hasNewline) refuse();
      if (keyStart < colon - MAX_IMPLICIT_KEY_SPAN) refuse();
      const sepHasComment = this.#hasComment;
      const name = String(keyValue);
      // A duplicate is refused so that the composed walk reports it, both places named.
      if (seen.has(name)) refuse();
      seen.add(name);
      const childPointer = this.#enter(depth, pointer, name, keyOffset);
      let member: unknown = null;
      if (value === undefined) {
        this.#end = sepHasComment ? sepEnd : emptyScalarPosition(sepEnd, sep);
      } else {
        member = this.#node(value, depth + 1, childPointer);
      }
      offset = this.#end;
      setMember(record, keyValue, name, member);
    }
    if (seen.size === 0) refuse();
    // The Composer's 'Map comment with trailing content'.
    if (commentEnd && commentEnd < offset) refuse();
    this.#end = commentEnd ?? offset;
    return record;
  }

  /** The Composer's resolveBlockSeq. */
  #seq(seq: CST.BlockSequence, depth: number, pointer: string): unknown[] {
    if (depth > this.#maxDepth) refuse();
    const list: unknown[] = [];
    let offset = seq.offset;
    let commentEnd: number | undefined;
    for (const item of seq.items) {
      const { start, value } = item;
      if ('key' in item || 'sep' in item) refuse();
      const propsEnd = this.#props(start, 'seq-item-ind', true, offset);
      if (this.#indicator === -1) {
        if (value !== undefined) refuse();
        commentEnd = propsEnd;
        continue;
      }
      const hasComment = this.#hasComment;
      const itemOffset = value === undefined ? emptyScalarPosition(propsEnd, start) : value.offset;
      const childPointer = this.#enter(depth, pointer, String(list.length), itemOffset);
      if (value === undefined) {
        this.#end = hasComment ? propsEnd : itemOffset;
        list.push(null);
      } else {
        list.push(this.#node(value, depth + 1, childPointer));
      }
      offset = this.#end;
    }
    if (list.length === 0) refuse();
    this.#end = commentEnd ?? offset;
    return list;
  }

  /**
   * The Composer's resolveFlowCollection for one-line collections of
   * scalars (`[a, "b"]`, `{k: v}`), the form manifests use for short lists
   * and references: no newline, comment, empty or nested item, or trailing comma.
   */
  #flow(flow: CST.FlowCollection, depth: number, pointer: string): unknown {
    if (depth > this.#maxDepth) refuse();
    const isMap = flow.start.source === '{';
    const record: Record<string, unknown> = {};
    const list: unknown[] = [];
    const names = new Set<string>();
    for (const [index, { start, key, sep, value }] of flow.items.entries()) {
      let commas = 0;
      for (const token of start) {
        if (token.type === 'comma') commas += 1;
        else if (token.type !== 'space') refuse();
      }
      if (commas !== (index === 0 ? 0 : 1)) refuse();
      if (!isFlowScalar(value) || value.source.includes('\n') || hasNewline(value.end)) refuse();
      if (!isMap) {
        if (key !== undefined || sep !== undefined) refuse();
        this.#enter(depth, pointer, String(list.length), value.offset);
        list.push(this.#scalar(value));
        continue;
      }
      if (!isFlowScalar(key) || key.source.includes('\n') || hasNewline(key.end) || sep === undefined)
        refuse();
      const keyValue = this.#scalar(key);
      this.#props(sep, 'map-value-ind', false, this.#end);
      if (this.#indicator === -1 || this.#hasNewline) refuse();
      const name = String(keyValue);
      if (names.has(name)) refuse();
      names.add(name);
      this.#enter(depth, pointer, name, key.offset);
      setMember(record, keyValue, name, this.#scalar(value));
    }
    const [close, ...after] = flow.end;
    if (close?.source !== (isMap ? '}' : ']')) refuse();
    this.#end = strictEnd(after, close.offset + close.source.length);
    return isMap ? record : list;
  }

  /**
   * A scalar's value as the core schema reads it (compose-scalar.ts without
   * tags). A one-line plain scalar, most of a manifest, is read here; others
   * by the package's own resolveAsScalar, refused on any error it reports.
   */
  #scalar(token: CST.FlowScalar | CST.BlockScalar): unknown {
    if (token.type === 'scalar' && !token.source.includes('\n')) {
      const { source } = token;
      if (BAD_PLAIN_START.has(source[0] ?? '')) refuse();
      this.#end = strictEnd(token.end, token.offset + source.length);
      return ownValue(resolvePlain(source));
    }
    let failed = false;
    const resolved = CST.resolveAsScalar(token, true, () => {
      failed = true;
    });
    if (resolved === null || failed) refuse();
    this.#end = resolved.range[2];
    return ownValue(token.type === 'scalar' ? resolvePlain(resolved.value) : resolved.value);
  }

  /**
   * The Composer's resolveProps for tokens that may hold white space,
   * comments and at most one `indicator` (none when undefined): anything
   * else (an anchor, a tag, another indicator) is refused, and so is a
   * comment with no white space before it. Returns where the tokens end
   * (`offset` when there are none) and sets #indicator, #hasNewline and
   * #hasComment.
   */
  #props(
    tokens: readonly CST.SourceToken[],
    indicator: CST.SourceToken['type'] | undefined,
    startOnNewline: boolean,
    offset: number,
  ): number {
    let hasSpace = startOnNewline;
    this.#indicator = -1;
    this.#hasNewline = false;
    this.#hasComment = false;
    for (const token of tokens) {
      switch (token.type) {
        case 'space':
          hasSpace = true;
          break;
        case 'comment':
          if (!hasSpace) refuse();
          this.#hasComment = true;
          break;
        case 'newline':
          hasSpace = true;
          this.#hasNewline = true;
          break;
        default:
          if (token.type !== indicator || this.#indicator !== -1) refuse();
          this.#indicator = token.offset;
          hasSpace = false;
      }
    }
    const last = tokens[tokens.length - 1];
    return last === undefined ? offset : last.offset + last.source.length;
  }

  /**
   * Records the offset of the member `key` of the node at `depth`, at its
   * level, exactly as DocumentWalk's #child does; returns the member's pointer.
   */
  #enter(depth: number, pointer: string, key: string, offset: number): string {
    const token = pointerToken(key);
    if (depth === 1) {
      const top = `/${token}`;
      this.offsets.addTop(top, offset);
      return top;
    }
    if (depth === 2) {
      this.offsets.addEntry(`${pointer}/${token}`, offset);
      return '';
    }
    const relative = `${pointer}/${token}`;
    this.offsets.addField(relative, offset);
    return relative;
  }
}

/** Adds a member to a mapping's data as the yaml package's toJS does; DocumentWalk (parse-manifest-file.ts) calls it too. */
export function setMember(record: Record<string, unknown>, key: unknown, name: string, value: unknown): void {
  // toJS names a key '' for null, the value as a string otherwise.
  const jsName = key === null ? '' : name;
  // As toJS adds it: defineProperty for a name the object already answers (`__proto__`, `toString`).
  if (jsName in record) {
    Object.defineProperty(record, jsName, { value, writable: true, enumerable: true, configurable: true });
  } else {
    record[jsName] = value;
  }
}

function hasNewline(tokens: readonly CST.SourceToken[] | undefined): boolean {
  for (const token of tokens ?? []) if (token.type === 'newline') return true;
  return false;
}

function isFlowScalar(token: CST.Token | null | undefined): token is CST.FlowScalar {
  return (
    token?.type === 'scalar' ||
    token?.type === 'single-quoted-scalar' ||
    token?.type === 'double-quoted-scalar'
  );
}

/**
 * The end of a flow scalar with the white space and comments after it
 * (the Composer's resolveEnd, strict): a comment needs white space before it.
 */
function strictEnd(tokens: readonly CST.SourceToken[] | undefined, offset: number): number {
  let end = offset;
  let hasSpace = false;
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'space':
      case 'newline':
        hasSpace = true;
        break;
      case 'comment':
        if (!hasSpace) refuse();
        break;
      default:
        refuse();
    }
    end += token.source.length;
  }
  return end;
}

/**
 * Where the Composer places an empty value (yaml's emptyScalarPosition):
 * after the last token before it that is not white space or a comment,
 * and after the spaces that follow that token.
 */
function emptyScalarPosition(offset: number, before: readonly CST.SourceToken[]): number {
  let position = offset;
  for (let index = before.length - 1; index >= 0; index -= 1) {
    const token = before[index] as CST.SourceToken;
    if (token.type === 'space' || token.type === 'comment' || token.type === 'newline') {
      position -= token.source.length;
      continue;
    }
    for (let next = index + 1; before[next]?.type === 'space'; next += 1) {
      position += (before[next] as CST.SourceToken).source.length;
    }
    break;
  }
  return position;
}

// The YAML 1.2 core schema's tests, in the order the yaml package tries them (yaml/dist/schema/core).
const CORE_NULL = /^(?:~|[Nn]ull|NULL)?$/;
const CORE_BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const CORE_INT_OCT = /^0o[0-7]+$/;
const CORE_INT = /^[-+]?[0-9]+$/;
const CORE_INT_HEX = /^0x[0-9a-fA-F]+$/;
const CORE_FLOAT_NAN_INF = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const CORE_FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const CORE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
/**
 * V8 keeps a substring of at least this many characters as a view into the
 * string it was cut from (a sliced string); a shorter one is a copy.
 */
const SHORTEST_SLICE = 13;

/**
 * A scalar's value, with a string of its own characters. The lexer's tokens
 * are substrings of the file's text, and one string kept (a rule's
 * description, CIDR, policy ID) kept the whole text alive: every file
 * parsed on the main thread, 2.6 MB at 100,000 rules. (On a parsing worker
 * the copy is not needed, the transfer copies every string, but the walk
 * does not know where it runs: asking node:worker_threads would load it
 * for every `validate`.)
 */
function ownValue(value: unknown): unknown {
  if (typeof value !== 'string' || value.length < SHORTEST_SLICE) return value;
  // JSON's round trip is exact for every string, lone surrogates included, and the fastest copy measured.
  return JSON.parse(JSON.stringify(value)) as string;
}

/** The first characters of every spelling above; a plain scalar starting otherwise is a string. */
const NOT_ONLY_STRING_START = /^(?:$|[~nNtTfF0-9+\-.])/;

/**
 * A plain scalar's value by the core schema, as the yaml package resolves
 * it with `intAsBigInt: false`: integers by parseInt (so `-0` is -0 and
 * large ones lose precision), floats by parseFloat.
 */
export function resolvePlain(source: string): unknown {
  if (!NOT_ONLY_STRING_START.test(source)) return source;
  if (CORE_NULL.test(source)) return null;
  if (CORE_BOOL.test(source)) return source[0] === 't' || source[0] === 'T';
  if (CORE_INT_OCT.test(source)) return Number.parseInt(source.slice(2), 8);
  if (CORE_INT.test(source)) return Number.parseInt(source, 10);
  if (CORE_INT_HEX.test(source)) return Number.parseInt(source.slice(2), 16);
  if (CORE_FLOAT_NAN_INF.test(source)) {
    if (source.slice(-3).toLowerCase() === 'nan') return Number.NaN;
    return source[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (CORE_FLOAT_EXP.test(source) || CORE_FLOAT.test(source)) return Number.parseFloat(source);
  return source;
}
