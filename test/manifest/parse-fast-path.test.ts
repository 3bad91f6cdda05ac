import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Document, isMap, isSeq, stringify, visit } from 'yaml';
import { composeManifest, parseManifestCst } from '../../src/manifest/parse-manifest-file.js';
import type { ParseOutcome } from '../../src/manifest/parsed-manifest.js';
import { propertyRuns } from '../support/property-runs.js';
import { yamlStyles } from './yaml-styles.js';

const FILE = { display: 'm.yaml', absolute: '/m.yaml', root: '/', confined: false };

/** A value as text that tells apart what deep equality may not: -0, key order, an own `__proto__`. */
function spelled(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? 'number:-0' : `number:${value}`;
  if (value === null || typeof value !== 'object') return `${typeof value}:${String(value)}`;
  if (Array.isArray(value)) return `[${value.map(spelled).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record).map((key) => `${JSON.stringify(key)}:${spelled(record[key])}`);
  const prototype = Object.getPrototypeOf(record) === Object.prototype ? '' : ' (other prototype)';
  return `{${members.join(',')}}${prototype}`;
}

/** Everything an outcome tells its callers, in a form two outcomes can be compared in. */
function observable(outcome: ParseOutcome): unknown {
  if (!outcome.ok) return { errors: outcome.errors.map((error) => [error.code, error.message]) };
  const { data, positions } = outcome.manifest;
  const { top, ...rows } = positions.offsets.compact;
  return {
    data: spelled(data),
    lineStarts: [...positions.lineStarts],
    top: [...top],
    rows,
  };
}

/**
 * Null when the fast path refuses the text or answers what composing it
 * answers; otherwise both outcomes, for the failure message.
 */
function disagreement(text: string): { fast: unknown; composed: unknown } | null {
  const fast = parseManifestCst(FILE, text);
  if (fast === undefined) return null;
  const composed = observable(composeManifest(FILE, text));
  return isDeepStrictEqual(observable(fast), composed) ? null : { fast: observable(fast), composed };
}

/** Scalars in the spellings the core schema reads each in its own way. */
const spelledScalar = fc.constantFrom(
  'true',
  'False',
  'TRUE',
  'yes',
  '~',
  'null',
  'Null',
  'NULL',
  '',
  '0x1F',
  '0o17',
  '017',
  '-0',
  '+12',
  '1_000',
  '12345678901234567890',
  '1e3',
  '-1.5E-3',
  '.5',
  '1.',
  '-.inf',
  '.NaN',
  '.nan',
  '0x',
  '"quoted: text"',
  "'single ''quoted'''",
  '"\\u263a"',
  '"\\q"',
  '__proto__',
  'toString',
  '2026-11-25',
  '@at',
  '|\n  literal\n  block\n',
  '>-\n  folded\n  text\n',
  '"multi\n  line"',
  '!!str 12',
);

/** Documents of core-schema spellings as keys and values, one member a line. */
const spelledDocument = fc
  .array(fc.tuple(spelledScalar, spelledScalar), { minLength: 1, maxLength: 6 })
  .map((pairs) =>
    pairs
      .map(
        ([key, value]) => `${key}: ${value.includes('\n') && !value.startsWith('"') ? value : `${value}\n`}`,
      )
      .join(''),
  );

/** The same spellings in one-line flow collections, as keys and values: `a: {k: v, k2: v2}`, `b: [v, v2]`. */
const spelledFlowDocument = fc
  .tuple(
    fc.array(fc.tuple(spelledScalar, spelledScalar), { maxLength: 4 }),
    fc.array(spelledScalar, { maxLength: 4 }),
  )
  .map(([pairs, items]) => {
    const oneLine = (scalar: string): boolean => !scalar.includes('\n');
    const members = pairs
      .filter(([key, value]) => oneLine(key) && oneLine(value))
      .map(([k, v]) => `${k}: ${v}`);
    return `a: {${members.join(', ')}}\nb: [${items.filter(oneLine).join(', ')}]\n`;
  });

/** A manifest-shaped document: kinds of named entries of fields, some of them lists. */
const manifestDocument = fc
  .dictionary(
    fc.constantFrom('ip_policy_rules', 'https_edges', 'tcp_edges'),
    fc.dictionary(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
      fc.dictionary(
        fc.constantFrom('cidr', 'action', 'description', 'hostports', 'routes'),
        fc.oneof(fc.string(), fc.integer(), fc.array(fc.string(), { minLength: 1, maxLength: 3 })),
      ),
    ),
    { minKeys: 1 },
  )
  .map((kinds) => stringify({ version: 1, ...kinds }));

/**
 * A manifest-shaped document whose lists, or lists and mappings below the
 * entries, are written in flow style (`hostports: [a, b]`, `{ file: x }`)
 * inside block ones, as manifests write short lists and references.
 */
const mixedStyleDocument = fc
  .tuple(
    fc.dictionary(
      fc.constantFrom('ip_policy_rules', 'https_edges'),
      fc.dictionary(
        fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
        fc.dictionary(
          fc.constantFrom('hostports', 'oidc', 'cidr', 'scopes'),
          fc.oneof(
            fc.string(),
            fc.array(fc.oneof(fc.string(), fc.integer(), spelledScalar), { maxLength: 3 }),
            fc.dictionary(fc.string(), fc.oneof(fc.string(), spelledScalar), { maxKeys: 3 }),
          ),
        ),
      ),
      { minKeys: 1 },
    ),
    fc.boolean(),
  )
  .map(([kinds, mapsToo]) => {
    const document = new Document({ version: 1, ...kinds });
    visit(document, (_key, node, path) => {
      // The document, the root, a kind's pair and mapping, an entry's pair and mapping, a field's pair.
      const isFieldValue = path.length >= 7;
      if (isFieldValue && (isSeq(node) || (mapsToo && isMap(node)))) node.flow = true;
    });
    return document.toString();
  });

/** What hostile edits insert: YAML's indicators, and what the fast path must refuse. */
const hostileInsert = fc.constantFrom(
  ':',
  ': ',
  '-',
  '- ',
  '#',
  ' #c',
  '\t',
  '&a ',
  '*a',
  '!!str ',
  '!x ',
  '? ',
  '"',
  "'",
  '\\',
  '\n',
  '\r\n',
  '\r',
  ' ',
  '  ',
  '---\n',
  '--- ',
  '...\n',
  '%YAML 1.2\n',
  '[',
  ']',
  '{}',
  ',',
  '|',
  '>',
  '@',
  '`',
  '0x1F',
  '~',
  'k'.repeat(1030),
);

const edit = fc.oneof(
  fc.record({ insert: hostileInsert, at: fc.nat() }),
  fc.record({ insert: hostileInsert, atMark: fc.nat() }),
  fc.record({ remove: fc.integer({ min: 1, max: 3 }), at: fc.nat() }),
  fc.record({ repeatLine: fc.nat() }),
  fc.record({ indentLine: fc.nat(), by: fc.integer({ min: -2, max: 2 }) }),
);

type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

/** Where YAML's structure is decided: line starts, ends of indentation, after `:`, `-` and flow indicators. */
function structuralOffsets(text: string): number[] {
  const offsets: number[] = [];
  for (const match of text.matchAll(/^ *|[:\-[\]{},]/gm)) {
    const at = match.index ?? 0;
    if (match[0].startsWith(' ')) offsets.push(at);
    offsets.push(at + match[0].length);
  }
  return offsets;
}

function applyEdit(text: string, change: Edit): string {
  if ('atMark' in change) {
    const marks = structuralOffsets(text);
    const at = marks[change.atMark % marks.length] ?? 0;
    return text.slice(0, at) + change.insert + text.slice(at);
  }
  if ('insert' in change) {
    const at = change.at % (text.length + 1);
    return text.slice(0, at) + change.insert + text.slice(at);
  }
  if ('remove' in change) {
    const at = change.at % (text.length + 1);
    return text.slice(0, at) + text.slice(at + change.remove);
  }
  const lines = text.split('\n');
  if ('repeatLine' in change) {
    const index = change.repeatLine % lines.length;
    lines.splice(index, 0, lines[index] ?? '');
    return lines.join('\n');
  }
  const index = change.indentLine % lines.length;
  const line = lines[index] ?? '';
  lines[index] =
    change.by >= 0 ? ' '.repeat(change.by) + line : line.replace(new RegExp(`^ {0,${-change.by}}`), '');
  return lines.join('\n');
}

/** Mappings and sequences nested around the nesting limit (MAX_NESTING_DEPTH, 64). */
const deepDocument = fc
  .array(fc.boolean(), { minLength: 60, maxLength: 70 })
  .map((levels) =>
    stringify(levels.reduceRight<unknown>((inner, asList) => (asList ? [inner] : { k: inner }), 1)),
  )
  .map((text) => `root:\n${text.replace(/^/gm, '  ')}`);

const anyDocument = fc.oneof(
  fc
    .tuple(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }), { minKeys: 1, maxKeys: 6 }), yamlStyles)
    .map(([document, style]) => stringify(document, null, style)),
  spelledDocument,
  spelledFlowDocument,
  manifestDocument,
  mixedStyleDocument,
  deepDocument,
);

describe('the CST fast path answers what composing the document answers, or refuses', () => {
  it('for JSON-like documents in every style yaml writes, and core-schema spellings', () => {
    let answered = 0;
    let runs = 0;

    fc.assert(
      fc.property(anyDocument, (text) => {
        runs += 1;
        if (parseManifestCst(FILE, text) !== undefined) answered += 1;
        expect(disagreement(text)).toBeNull();
      }),
      { numRuns: propertyRuns({ small: 60, large: 400 }) },
    );

    // Refusing everything would pass the property above. About a third of these documents are in
    // its subset (flow collections, tags, too deep nesting are not).
    expect(answered).toBeGreaterThan(runs / 5);
  });

  it('for the same documents after hostile edits', () => {
    fc.assert(
      fc.property(anyDocument, fc.array(edit, { minLength: 1, maxLength: 4 }), (text, edits) => {
        expect(disagreement(edits.reduce(applyEdit, text))).toBeNull();
      }),
      { numRuns: propertyRuns({ small: 200, large: 1500 }) },
    );
  });

  it('for every YAML file in the repository', () => {
    const files = ['examples', 'deploy', 'test', '.github'].flatMap((dir) => yamlFilesUnder(dir));

    const disagreeing = files.filter((path) => disagreement(readFileSync(path, 'utf8')) !== null);

    expect(files.length).toBeGreaterThan(20);
    expect(disagreeing).toEqual([]);
  });

  it('takes the usual manifest: block collections, comments, blank lines, quotes, block scalars, a leading ---', () => {
    const text = [
      '# Rules for the office network.',
      '---',
      'version: 1',
      '',
      'ip_policy_rules:',
      '  office-v4:   # the main office',
      "    ip_policy_id: 'ipp_Office'",
      '    cidr: "10.0.0.0/8"',
      '    action: allow',
      '    description: |',
      '      Office network,',
      '      both floors.',
      '    tags:',
      '    - a',
      '    -',
      '    - 0x1F',
      '',
      '# end',
      '',
    ].join('\n');

    const outcome = parseManifestCst(FILE, text);

    expect(outcome).toBeDefined();
    expect(disagreement(text)).toBeNull();
  });
});

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}
