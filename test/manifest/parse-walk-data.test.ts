import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseManifestBytes } from '../../src/manifest/parse-manifest-file.js';
import { propertyRuns } from '../support/property-runs.js';
import { yamlStyles } from './yaml-styles.js';

const FILE = { display: 'm.yaml', absolute: '/m.yaml', root: '/', confined: false };

/** The data the loader builds from YAML text, or undefined when it refuses the text. */
function loaderData(text: string): unknown {
  const outcome = parseManifestBytes(FILE, Buffer.from(text));
  return outcome.ok ? outcome.manifest.data : undefined;
}

/** JSON with key order, so that two objects with the same keys in another order differ. */
const ordered = (value: unknown): string => JSON.stringify(value);

/** Scalars written as YAML spells them, each read by the core schema in its own way. */
const spelledScalar = fc.constantFrom(
  'yes',
  'no',
  'true',
  'False',
  '~',
  'null',
  'Null',
  '',
  '0x1F',
  '0o17',
  '017',
  '1e3',
  '-.inf',
  '.NaN',
  '+12',
  '1_000',
  '"quoted: text"',
  "'single ''quoted'''",
  '2026-11-25',
  '12:30',
  '"\\u263a"',
  '|\n  literal\n  block\n',
  '>-\n  folded\n  text\n',
  '"multi\n  line"',
  '!!str 12',
  '!!int "7"',
);

describe('the manifest parser builds the same data as the yaml package', () => {
  // parse-manifest-file.ts builds the data in the walk that records positions, instead of
  // Document.toJS; for any alias-free document the two must agree, key order included.
  it('for any JSON-like document, in every style yaml writes', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }), { minKeys: 1, maxKeys: 6 }),
        yamlStyles,
        (document, style) => {
          const text = stringify(document, null, style);
          expect(ordered(loaderData(text))).toBe(ordered(parse(text)));
        },
      ),
      { numRuns: propertyRuns({ small: 60, large: 300 }) },
    );
  });

  it('for scalars in every spelling of the core schema, as keys and as values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(spelledScalar, spelledScalar), { minLength: 1, maxLength: 6 }),
        (pairs) => {
          const keys = new Set<string>();
          const lines: string[] = [];
          for (const [key, value] of pairs) {
            // Block scalars and multi-line strings cannot be keys; duplicate keys are refused by design.
            if (key.includes('\n') || key === '' || keys.has(key)) continue;
            keys.add(key);
            lines.push(`${key}: ${value.includes('\n') && !value.startsWith('"') ? value : `${value}\n`}`);
          }
          if (lines.length === 0) return;
          const text = lines.join('');
          const data = loaderData(text);
          let expected: unknown;
          try {
            expected = parse(text);
          } catch {
            // yaml refuses keys that read alike (~ and null): so does the loader.
            expect(data).toBeUndefined();
            return;
          }
          // Keys yaml reads apart but JavaScript names alike are the loader's duplicate_key; all others load.
          if (Object.keys(expected as object).length < lines.length) return;
          expect(ordered(data)).toBe(ordered(expected));
        },
      ),
      { numRuns: propertyRuns({ small: 60, large: 300 }) },
    );
  });
});
