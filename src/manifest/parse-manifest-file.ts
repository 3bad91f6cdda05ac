import { realpath } from 'node:fs/promises';
import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Node as YamlNode,
} from 'yaml';
import { pointerToken, pointerTokens } from '../json-pointer.js';
import { PointerOffsetsBuilder } from './file-positions.js';
import { ManifestError } from './manifest-error.js';
import { isInside, type ManifestFile } from './manifest-files.js';
import type { ParseOutcome } from './parsed-manifest.js';
import { readBoundedFile } from './read-bounded-file.js';
import type { SourceLocation } from './source-location.js';

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
  | { readonly ok: false; readonly error: (at: SourceLocation) => ManifestError };

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
  if (!read.ok) return { ok: false, errors: [read.error({ file: file.display, line: 1, column: 1 })] };
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

  const lineCounter = new LineCounter();
  const locate = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return at(line, col);
  };
  const documents = parseAllDocuments(text.value, {
    lineCounter,
    version: '1.2',
    schema: 'core',
    merge: false,
    resolveKnownTags: false,
    uniqueKeys: false,
    prettyErrors: false,
    strict: true,
  });
  const list = Array.isArray(documents) ? documents : [documents];
  const errors: ManifestError[] = [];
  for (const document of list) {
    for (const error of document.errors) {
      errors.push(
        new ManifestError('yaml_syntax', locate(error.pos[0]), '', yamlErrorMessage(error.message)),
      );
    }
  }
  if (errors.length > 0) return { ok: false, errors };

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

  const offsets = new PointerOffsetsBuilder();
  offsets.add('', first.contents.range?.[0] ?? 0);
  walkNode(first.contents, '', 1, offsets, errors, locate);
  if (errors.length > 0) return { ok: false, errors };

  let data: unknown;
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
  const positions = {
    file: file.display,
    lineStarts: Int32Array.from(lineCounter.lineStarts),
    offsets: offsets.build(),
  };
  return { ok: true, manifest: { file, data, positions } };
}

function toPlainData(document: Document): unknown {
  return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
}

/** The `yaml` package appends source excerpts to some messages; keep the first line only. */
function yamlErrorMessage(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

function describeNode(node: unknown): string {
  if (isSeq(node)) return 'a sequence';
  if (isScalar(node)) return node.value === null ? 'null' : `a ${typeof node.value} value`;
  if (isAlias(node)) return 'an alias';
  return 'something else';
}

/**
 * Records where every field is written and finds what the parser lets
 * through but a manifest may not hold: duplicate keys (both places named),
 * tags beyond the core schema, and nesting beyond MAX_NESTING_DEPTH.
 * Does not descend into aliases, so a billion-laughs file costs nothing here.
 */
function walkNode(
  node: unknown,
  pointer: string,
  depth: number,
  offsets: PointerOffsetsBuilder,
  errors: ManifestError[],
  locate: (offset: number) => SourceLocation,
): void {
  if (isAlias(node) || node === null || node === undefined) return;
  const yamlNode = node as YamlNode;
  const start = yamlNode.range?.[0] ?? 0;
  if (yamlNode.tag !== undefined && !CORE_TAGS.has(yamlNode.tag)) {
    errors.push(
      new ManifestError(
        'custom_tag',
        locate(start),
        pointerToLabel(pointer),
        `tag ${yamlNode.tag.replace('tag:yaml.org,2002:', '!!')} is not allowed; manifests use plain YAML 1.2 values`,
      ),
    );
  }
  if (!isMap(node) && !isSeq(node)) return;
  if (depth > MAX_NESTING_DEPTH) {
    errors.push(
      new ManifestError(
        'too_deep',
        locate(start),
        pointerToLabel(pointer),
        `nested more than ${MAX_NESTING_DEPTH} levels deep`,
      ),
    );
    return;
  }
  if (isSeq(node)) {
    node.items.forEach((item, index) => {
      const itemPointer = `${pointer}/${index}`;
      const itemStart = (item as YamlNode | null)?.range?.[0];
      offsets.add(itemPointer, itemStart ?? start);
      walkNode(item, itemPointer, depth + 1, offsets, errors, locate);
    });
    return;
  }
  const firstByKey = new Map<string, number>();
  for (const pair of node.items) {
    if (!isPair(pair)) continue;
    const keyNode = pair.key as YamlNode | null;
    const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    const keyOffset = keyNode?.range?.[0] ?? start;
    const memberPointer = `${pointer}/${pointerToken(key)}`;
    const firstOffset = firstByKey.get(key);
    if (firstOffset !== undefined) {
      const first = locate(firstOffset);
      errors.push(
        new ManifestError(
          'duplicate_key',
          locate(keyOffset),
          pointerToLabel(memberPointer),
          `duplicate key "${key}"; first set at line ${first.line}:${first.column}`,
        ),
      );
      continue;
    }
    firstByKey.set(key, keyOffset);
    offsets.add(memberPointer, keyOffset);
    walkNode(pair.value, memberPointer, depth + 1, offsets, errors, locate);
  }
}

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
