import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonChunks, lazyJsonArray, lazyJsonEntries } from '../src/json-chunks.js';
import { propertyRuns } from './support/property-runs.js';

const joined = (value: unknown, indent: number, streamDepth?: number): string =>
  [...jsonChunks(value, indent, streamDepth)].join('');

/** JSON values plus what JSON.stringify leaves out of objects and writes as null in arrays. */
const withOmitted = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    fc.constantFrom(undefined, () => 0, Symbol('left out')),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('jsonChunks', () => {
  it('joins to exactly JSON.stringify(value, null, indent), at every stream depth', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), withOmitted),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 4 }),
        (value, indent, streamDepth) => {
          expect(joined(value, indent, streamDepth)).toBe(JSON.stringify(value, null, indent) ?? 'null');
        },
      ),
      { numRuns: propertyRuns({ small: 100, large: 500 }) },
    );
  });

  it('writes lazy lists as the arrays and objects they stand for, made one item at a time', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 8 }),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }),
        (items, record) => {
          const made: unknown[] = [];
          const lazy = {
            list: lazyJsonArray(items, (item) => {
              made.push(item);
              return { item };
            }),
            record: lazyJsonEntries(record),
          };
          const expected = JSON.stringify({ list: items.map((item) => ({ item })), record }, null, 2);
          expect(joined(lazy, 2)).toBe(expected);
          expect(made).toEqual(items);
        },
      ),
      { numRuns: propertyRuns({ small: 100, large: 1000 }) },
    );
  });

  it('makes each lazy item only when the writer gets to it', () => {
    const made: number[] = [];
    const chunks = jsonChunks(
      lazyJsonArray([1, 2, 3], (item) => {
        made.push(item);
        return item;
      }),
      2,
    );
    chunks.next();
    chunks.next();
    expect(made).toEqual([1]);
    [...chunks];
    expect(made).toEqual([1, 2, 3]);
  });

  it('refuses an indent that JSON.stringify would write without line breaks', () => {
    expect(() => joined({ a: 1 }, 0)).toThrow(RangeError);
  });
});
