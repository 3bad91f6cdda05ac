import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonArrayElements, JsonLimitError, type JsonLimits } from '../src/json-array-elements.js';
import { propertyRuns } from './support/property-runs.js';

const PATHS = [
  ['plan', 'changes'],
  ['plan', 'actions'],
];

/** Reads `text` cut at `cuts`; the rest parsed with the elements put back, as JSON.parse would give it. */
function readInPieces(text: string, cuts: readonly number[]): unknown {
  const elements: unknown[][] = PATHS.map(() => []);
  const reader = new JsonArrayElements(PATHS, (path, index, value) => {
    expect(index).toBe(elements[path]?.length);
    elements[path]?.push(value);
  });
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    reader.push(text.slice(from, cut));
    from = cut;
  }
  reader.push(text.slice(from));
  const rest = reader.end() as { plan?: Record<string, unknown> };
  PATHS.forEach(([, key], path) => {
    const plan = rest.plan;
    if (key === undefined || plan === undefined || !Array.isArray(plan[key])) return;
    expect(plan[key]).toEqual([]);
    plan[key] = elements[path];
  });
  return rest;
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
/** A saved-plan-like document: the split arrays somewhere among other keys, each key once. */
const documentText = fc
  .record({
    before: fc.dictionary(
      fc.string().filter((key) => key !== 'plan'),
      jsonValue,
      { maxKeys: 3 },
    ),
    plan: fc.record({
      changes: fc.array(jsonValue, { maxLength: 5 }),
      actions: fc.array(fc.dictionary(fc.string(), jsonValue, { maxKeys: 3 }), { maxLength: 5 }),
      summary: jsonValue,
    }),
    after: fc.dictionary(
      fc.string().filter((key) => key !== 'plan'),
      jsonValue,
      { maxKeys: 3 },
    ),
    indent: fc.constantFrom(0, 2),
  })
  .map(({ before, plan, after, indent }) =>
    JSON.stringify({ ...before, plan, ...after }, null, indent).replaceAll('"plan"', '"\\u0070lan"'),
  );

describe('JsonArrayElements', () => {
  it('gives what JSON.parse gives, wherever the text is cut', () => {
    fc.assert(
      fc.property(documentText, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        expect(
          readInPieces(
            text,
            cuts.map((cut) => cut % (text.length + 1)),
          ),
        ).toEqual(JSON.parse(text));
      }),
      { numRuns: propertyRuns({ small: 60, large: 300 }) },
    );
  });

  it('refuses what JSON.parse refuses, and reads what it reads: one character of a document changed', () => {
    const structural = fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', ' ', '1');
    fc.assert(
      fc.property(
        documentText,
        fc.nat(),
        fc.constantFrom('insert', 'delete', 'replace'),
        structural,
        fc.array(fc.nat(), { maxLength: 4 }),
        (text, position, edit, character, cuts) => {
          const at = position % (text.length + 1);
          const changed =
            edit === 'insert'
              ? text.slice(0, at) + character + text.slice(at)
              : edit === 'delete'
                ? text.slice(0, at) + text.slice(at + 1)
                : text.slice(0, at) + character + text.slice(at + 1);
          let expected: unknown;
          try {
            expected = JSON.parse(changed);
          } catch {
            expect(() =>
              readInPieces(
                changed,
                cuts.map((cut) => cut % (changed.length + 1)),
              ),
            ).toThrow(SyntaxError);
            return;
          }
          expect(
            readInPieces(
              changed,
              cuts.map((cut) => cut % (changed.length + 1)),
            ),
          ).toEqual(expected);
        },
      ),
      { numRuns: propertyRuns({ small: 200, large: 1000 }) },
    );
  });

  it('refuses a split array given twice, which JSON.parse would read as its last', () => {
    const text = '{"plan":{"changes":[1],"changes":[2]}}';
    expect(() => readInPieces(text, [])).toThrow(/plan\.changes is given twice/);
  });

  it('names what is wrong inside a split array', () => {
    expect(() => readInPieces('{"plan":{"changes":[1,,2]}}', [])).toThrow(
      /an element of plan.changes is missing/,
    );
    expect(() => readInPieces('{"plan":{"changes":[1,]}}', [])).toThrow(
      /an element of plan.changes is missing/,
    );
    expect(() => readInPieces('{"plan":{"changes":[1}}', [])).toThrow(/a \} closes plan.changes/);
    expect(() => readInPieces('{"plan":{"changes":[1', [])).toThrow(/ends early/);
  });
});

describe('JsonArrayElements within limits', () => {
  const read = (text: string, limits: JsonLimits, skip: readonly number[] = []): unknown[] => {
    const seen: unknown[] = [];
    const reader = new JsonArrayElements(PATHS, (_path, _index, value) => seen.push(value), { skip, limits });
    for (const character of text) reader.push(character);
    reader.end();
    return seen;
  };

  it.each([
    {
      limits: { maxDepth: 4 },
      text: '{"plan":{"actions":[[[1]]]}}',
      message: 'nested deeper than 4 levels in plan.actions[0]',
    },
    { limits: { maxDepth: 2 }, text: '{"a":{"b":[]}}', message: 'nested deeper than 2 levels' },
    {
      limits: { maxElementChars: 5 },
      text: '{"plan":{"actions":[1,"123456"]}}',
      message: 'plan.actions[1] is longer than 5 characters',
    },
    {
      limits: { maxRestChars: 10 },
      text: '{"owner":"0123456789"}',
      message: 'longer than 10 characters besides plan.changes and plan.actions',
    },
  ])('refuses $message as the scan reaches it', ({ limits, text, message }) => {
    expect(() => read(text, limits)).toThrow(new JsonLimitError(message));
  });

  it('gives what is within them, and skips the elements of the paths it is told to, unparsed', () => {
    const text = '{"plan":{"changes":[{"a":[1]}, not json],"actions":[{"b":2},[3]]}}';

    expect(read(text, { maxDepth: 5, maxElementChars: 12, maxRestChars: 40 }, [0])).toEqual([{ b: 2 }, [3]]);
  });
});
