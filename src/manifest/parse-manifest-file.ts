import { realpath } from 'node:fs/promises';
import {
  Composer,
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type YAMLMap,
  type Node as YamlNode,
} from 'yaml';
import { pointerToken, pointerTokens } from '../json-pointer.js';
import { setMember, walkManifestCst } from './cst-walk.js';
import { PointerOffsetsBuilder } from './file-positions.js';
import { ManifestError } from './manifest-error.js';
import { isInside, type ManifestFile } from './manifest-files.js';
import { ParseTokens } from './parse-tokens.js';
import type { ParseOutcome } from './parsed-manifest.js';
import { readBoundedFile } from './read-bounded-file.js';
import type { FileLocation, SourceLocation } from './source-location.js';
import { yamlSyntaxError } from './yaml-syntax-error.js';

/** Manifests are small; anything larger is a mistake (a generated dump, a binary) rather than a config. */
export const MAX_MANIFEST_BYTES = 5 * 1024 * 1024;
/** Nesting depth of collections; the format needs about 8. */
export const MAX_NESTING_DEPTH = 64;
/** Alias expansions allowed per file (the `yaml` package's `maxAliasCount`): reuse is fine, a billion laughs is not. */
export const MAX_ALIAS_COUNT = 100;

/** The tags of the YAML 1.2 core schema, the only ones a manifest may spell out. */
const CORE_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`),
);

type ReadOutcome =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly error: (at: FileLocation) => ManifestError };

/**
 * The file's bytes, read from its real path after checking that path is
 * still inside the root (the tree may have changed since the walk), and
 * bounded by MAX_MANIFEST_BYTES + 1 however large the file claims to be.
 * Nothing of a refused file is read, so nothing of it can reach a message.
 */
async function readManifestBytes(file: ManifestFile): Promise<ReadOutcome> {
  try {
    const real = await realpath(file.absolute);
    if (file.confined && !isInside(file.root, real)) {
      return {
        ok: false,
        error: (at) =>
          new ManifestError(
            'path_outside_root',
            at,
            '',
            'resolves outside the manifest root (the directory given on the command line); not read. Pass --allow-outside-root to read it',
          ),
      };
    }
    const read = await readBoundedFile(real, MAX_MANIFEST_BYTES);
    if (read.ok) return read;
    if (read.reason === 'not_regular') {
      return {
        ok: false,
        error: (at) =>
          new ManifestError(
            'not_regular_file',
            at,
            '',
            `${read.type}, not a regular file; manifests must be regular files`,
          ),
      };
    }
    return {
      ok: false,
      error: (at) =>
        new ManifestError(
          'file_too_large',
          at,
          '',
          `file is larger than ${MAX_MANIFEST_BYTES} bytes (5 MB), the most a manifest may hold`,
        ),
    };
  } catch (error) {
    return {
      ok: false,
      error: (at) => new ManifestError('file_not_found', at, '', 'cannot read the file', { cause: error }),
    };
  }
}

/** The bytes of one manifest file, or the error that names why they cannot be read. */
export async function readManifestFile(
  file: ManifestFile,
): Promise<
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly errors: readonly ManifestError[] }
> {
  const read = await readManifestBytes(file);
  if (!read.ok) return { ok: false, errors: [read.error({ file: file.display })] };
  return read;
}

/**
 * Decodes and parses the bytes of one manifest. Synchronous and CPU-bound
 * (about 150 ms per MB on a busy core): ManifestParsing (parse-in-worker.ts)
 * runs it in worker threads for large loads and large files, so the daemon's
 * event loop (and /healthz) never waits on them.
 */
export function parseManifestBytes(file: ManifestFile, bytes: Uint8Array): ParseOutcome {
  const at = (line: number, column: number): SourceLocation => ({ file: file.display, line, column });
  const fail = (error: ManifestError): ParseOutcome => ({ ok: false, errors: [error] });

  const text = decodeUtf8(bytes);
  if (!text.ok) {
    return fail(
      new ManifestError(
        'invalid_utf8',
        at(text.line, text.column),
        '',
        `invalid UTF-8 (byte 0x${text.byte.toString(16).padStart(2, '0')} at offset ${text.offset}); manifests must be UTF-8`,
      ),
    );
  }

  return parseManifestText(file, text.value);
}

/**
 * Parses one manifest's text: from the `yaml` Parser's tokens when the file
 * is in the subset cst-walk.ts handles (nearly every manifest), else by
 * composing it (composeManifest), which reports every error.
 */
function parseManifestText(file: ManifestFile, text: string): ParseOutcome {
  return parseManifestCst(file, text) ?? composeManifest(file, text);
}

/** The outcome from the Parser's tokens alone, or undefined when cst-walk.ts refuses the text. */
export function parseManifestCst(file: ManifestFile, text: string): ParseOutcome | undefined {
  const lineCounter = new LineCounter();
  const walked = walkManifestCst(text, lineCounter, MAX_NESTING_DEPTH);
  if (walked === undefined) return undefined;
  if ('runawayAt' in walked) return runawayNesting(file, lineCounter, walked.runawayAt);
  const positions = {
    file: file.display,
    lineStarts: Int32Array.from(lineCounter.lineStarts),
    offsets: walked.offsets,
  };
  return { ok: true, manifest: { file, data: walked.data, positions } };
}

/**
 * The outcome from the composed Document: yaml's errors, then the checks
 * and the data of one DocumentWalk. Handles every file; parseManifestCst
 * must answer the same wherever it answers at all.
 */
export function composeManifest(file: ManifestFile, text: string): ParseOutcome {
  const at = (line: number, column: number): SourceLocation => ({ file: file.display, line, column });
  const fail = (error: ManifestError): ParseOutcome => ({ ok: false, errors: [error] });
  const lineCounter = new LineCounter();
  const locate = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return at(line, col);
  };
  // parseAllDocuments, with the Parser's tokens stopped where nesting runs away.
  const tokens = new ParseTokens(MAX_NESTING_DEPTH);
  const list = Array.from(
    new Composer({
      version: '1.2',
      schema: 'core',
      merge: false,
      resolveKnownTags: false,
      uniqueKeys: false,
      strict: true,
    }).compose(tokens.tokens(text, lineCounter.addNewLine)),
  );
  if (tokens.runawayAt !== undefined) return runawayNesting(file, lineCounter, tokens.runawayAt);
  const syntaxErrors = list.flatMap((document) => document.errors);
  if (syntaxErrors.length > 0) {
    return fail(yamlSyntaxError(file.display, text, syntaxErrors, locate));
  }

  const [first, second] = list;
  if (second !== undefined) {
    return fail(
      new ManifestError(
        'multiple_documents',
        locate(second.range[0]),
        '',
        'a manifest holds one YAML document; split this file at "---" into several files',
      ),
    );
  }
  if (first === undefined || !isMap(first.contents)) {
    const found =
      first === undefined || first.contents === null ? 'an empty file' : describeNode(first.contents);
    const offset = first?.contents?.range?.[0] ?? 0;
    return fail(
      new ManifestError(
        'not_a_mapping',
        locate(offset),
        '',
        `expected a mapping with "version: 1" (found ${found})`,
      ),
    );
  }

  const walk = new DocumentWalk(locate);
  const converted = walk.root(first.contents);
  if (walk.errors.length > 0) return { ok: false, errors: walk.errors };

  let data: unknown = converted;
  if (!walk.convertible) {
    try {
      data = toPlainData(first);
    } catch (error) {
      return fail(
        new ManifestError(
          'too_many_aliases',
          locate(firstAliasOffset(first) ?? 0),
          '',
          `aliases expand to too much data (more than ${MAX_ALIAS_COUNT} alias uses); write the values out`,
          { cause: error },
        ),
      );
    }
  }
  const positions = {
    file: file.display,
    lineStarts: Int32Array.from(lineCounter.lineStarts),
    offsets: walk.offsets.build(),
  };
  return { ok: true, manifest: { file, data, positions } };
}

/**
 * Nesting far past MAX_NESTING_DEPTH, found while the text was tokenized:
 * one `too_deep` error at the first collection too deep, as the walks
 * would report it, without its path (nothing was composed to name it).
 */
function runawayNesting(file: ManifestFile, lineCounter: LineCounter, offset: number): ParseOutcome {
  const { line, col } = lineCounter.linePos(offset);
  return {
    ok: false,
    errors: [
      new ManifestError(
        'too_deep',
        { file: file.display, line, column: col },
        '',
        `nested more than ${MAX_NESTING_DEPTH} levels deep`,
      ),
    ],
  };
}

function toPlainData(document: Document): unknown {
  return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
}

function describeNode(node: unknown): string {
  if (isSeq(node)) return 'a sequence';
  if (isScalar(node)) return node.value === null ? 'null' : `a ${typeof node.value} value`;
  if (isAlias(node)) return 'an alias';
  return 'something else';
}

/**
 * One walk over the document that records where every field is written,
 * finds what the parser lets through but a manifest may not hold (duplicate
 * keys, both places named; tags beyond the core schema; nesting beyond
 * MAX_NESTING_DEPTH) and builds the plain data `Document.toJS` would, in
 * the same pass: toJS walked every node a second time. A document with an
 * alias, or a key that is not a plain value, is left to `toJS`
 * (`convertible` false), which expands
 * aliases within MAX_ALIAS_COUNT and prints such keys as it always did.
 * Does not descend into aliases, so a billion-laughs file costs nothing here.
 */
class DocumentWalk {
  readonly offsets = new PointerOffsetsBuilder();
  readonly errors: ManifestError[] = [];
  /** False once the walk met what only `Document.toJS` converts: its data is then not used. */
  convertible = true;
  readonly #locate: (offset: number) => SourceLocation;
  /** Pointer of the entry being walked: deeper values carry pointers relative to it. */
  #entry = '';

  constructor(locate: (offset: number) => SourceLocation) {
    this.#locate = locate;
  }

  root(contents: YAMLMap): unknown {
    this.offsets.addTop('', contents.range?.[0] ?? 0);
    return this.#node(contents, 1, '');
  }

  /**
   * `pointer` is the node's JSON Pointer down to entry level (depth 3 and
   * less: '', `/kind`, `/kind/name`) and relative to its entry below.
   */
  #node(node: unknown, depth: number, pointer: string): unknown {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      this.convertible = false;
      return undefined;
    }
    const yamlNode = node as YamlNode;
    const start = yamlNode.range?.[0] ?? 0;
    if (yamlNode.tag !== undefined && !CORE_TAGS.has(yamlNode.tag)) {
      this.errors.push(
        new ManifestError(
          'custom_tag',
          this.#locate(start),
          pointerToLabel(this.#full(depth, pointer)),
          `tag ${yamlNode.tag.replace('tag:yaml.org,2002:', '!!')} is not allowed; manifests use plain YAML 1.2 values`,
        ),
      );
    }
    if (isScalar(node)) return node.value;
    if (!isMap(node) && !isSeq(node)) {
      this.convertible = false;
      return undefined;
    }
    if (depth > MAX_NESTING_DEPTH) {
      this.errors.push(
        new ManifestError(
          'too_deep',
          this.#locate(start),
          pointerToLabel(this.#full(depth, pointer)),
          `nested more than ${MAX_NESTING_DEPTH} levels deep`,
        ),
      );
      return undefined;
    }
    if (isSeq(node)) {
      const list: unknown[] = [];
      for (let index = 0; index < node.items.length; index += 1) {
        const item = node.items[index];
        const itemStart = (item as YamlNode | null)?.range?.[0];
        list.push(this.#child(item, depth, pointer, String(index), itemStart ?? start));
      }
      return list;
    }
    return this.#map(node, depth, pointer, start);
  }

  #map(node: YAMLMap, depth: number, pointer: string, start: number): Record<string, unknown> {
    const record: Record<string, unknown> = {};
    // Most mappings hold a few keys: a list scan finds a duplicate sooner than a Map is built.
    const keys: string[] = [];
    const keyOffsets: number[] = [];
    let firstByKey: Map<string, number> | undefined;
    for (const pair of node.items) {
      if (!isPair(pair)) {
        this.convertible = false;
        continue;
      }
      const keyNode = pair.key as YamlNode | null;
      const keyIsScalar = isScalar(keyNode);
      const key = keyIsScalar ? String(keyNode.value) : String(keyNode);
      const keyOffset = keyNode?.range?.[0] ?? start;
      let firstOffset: number | undefined;
      if (firstByKey !== undefined) {
        firstOffset = firstByKey.get(key);
      } else {
        const index = keys.indexOf(key);
        if (index !== -1) firstOffset = keyOffsets[index];
      }
      if (firstOffset !== undefined) {
        const first = this.#locate(firstOffset);
        this.errors.push(
          new ManifestError(
            'duplicate_key',
            this.#locate(keyOffset),
            pointerToLabel(`${this.#full(depth, pointer)}/${pointerToken(key)}`),
            `duplicate key "${key}"; first set at line ${first.line}:${first.column}`,
          ),
        );
        continue;
      }
      if (firstByKey !== undefined) {
        firstByKey.set(key, keyOffset);
      } else if (keys.length < SCANNED_KEYS) {
        keys.push(key);
        keyOffsets.push(keyOffset);
      } else {
        firstByKey = new Map(keys.map((seen, index) => [seen, keyOffsets[index] as number]));
        firstByKey.set(key, keyOffset);
      }
      const value = this.#child(pair.value, depth, pointer, key, keyOffset);
      if (!this.convertible) continue;
      // The key's value as the yaml package's toJS reads it; setMember names it ('' for null) and adds it.
      const jsKey = keyIsScalar ? keyNode.value : undefined;
      if (!keyIsScalar || (jsKey !== null && typeof jsKey === 'object')) {
        this.convertible = false;
        continue;
      }
      setMember(record, jsKey, String(jsKey), value);
    }
    return record;
  }

  /** A member or item of the node at `depth`: its offset recorded at its level, then walked. */
  #child(node: unknown, depth: number, pointer: string, key: string, offset: number): unknown {
    const token = pointerToken(key);
    if (depth === 1) {
      const top = `/${token}`;
      this.offsets.addTop(top, offset);
      return this.#node(node, 2, top);
    }
    if (depth === 2) {
      const entry = `${pointer}/${token}`;
      this.offsets.addEntry(entry, offset);
      this.#entry = entry;
      return this.#node(node, 3, '');
    }
    const relative = `${pointer}/${token}`;
    this.offsets.addField(relative, offset);
    return this.#node(node, depth + 1, relative);
  }

  /** The full pointer of the node at `depth` (below entry level `pointer` is relative to the entry). */
  #full(depth: number, pointer: string): string {
    return depth >= 3 ? `${this.#entry}${pointer}` : pointer;
  }
}

/** Keys a mapping's duplicate check scans in a list before it builds a Map. */
const SCANNED_KEYS = 16;

function firstAliasOffset(document: Document): number | undefined {
  let found: number | undefined;
  const visit = (node: unknown): void => {
    if (found !== undefined) return;
    if (isAlias(node)) {
      found = node.range?.[0];
    } else if (isMap(node)) {
      for (const pair of node.items) visit(pair.value);
    } else if (isSeq(node)) {
      for (const item of node.items) visit(item);
    }
  };
  visit(document.contents);
  return found;
}

/** A path for messages before the data is known: pointer segments joined with dots. */
function pointerToLabel(pointer: string): string {
  const segments = pointerTokens(pointer);
  // A runaway nesting error would otherwise print a path as long as the nesting.
  return segments.length > 8 ? `${segments.slice(0, 8).join('.')}…` : segments.join('.');
}

type Utf8Outcome =
  | { readonly ok: true; readonly value: string }
  | {
      readonly ok: false;
      readonly offset: number;
      readonly byte: number;
      readonly line: number;
      readonly column: number;
    };

/** Decodes strictly; on failure finds the first bad byte and its line and column (in characters). */
function decodeUtf8(bytes: Uint8Array): Utf8Outcome {
  try {
    const value = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { ok: true, value };
  } catch {
    const offset = firstInvalidUtf8(bytes);
    const before = new TextDecoder('utf-8').decode(bytes.subarray(0, offset));
    const lastNewline = before.lastIndexOf('\n');
    const line = before.split('\n').length;
    const column = [...before.slice(lastNewline + 1)].length + 1;
    return { ok: false, offset, byte: bytes[offset] ?? 0, line, column };
  }
}

/** Offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] ?? 0;
    if (lead < 0x80) {
      index += 1;
      continue;
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf
        ? 2
        : lead >= 0xe0 && lead <= 0xef
          ? 3
          : lead >= 0xf0 && lead <= 0xf4
            ? 4
            : 0;
    if (length === 0 || index + length > bytes.length) return index;
    for (let next = 1; next < length; next += 1) {
      if (((bytes[index + next] ?? 0) & 0xc0) !== 0x80) return index;
    }
    const second = bytes[index + 1] ?? 0;
    // Overlong forms, UTF-16 surrogates and code points above U+10FFFF.
    if (
      (lead === 0xe0 && second < 0xa0) ||
      (lead === 0xed && second > 0x9f) ||
      (lead === 0xf0 && second < 0x90) ||
      (lead === 0xf4 && second > 0x8f)
    ) {
      return index;
    }
    index += length;
  }
  return Math.max(0, bytes.length - 1);
}
