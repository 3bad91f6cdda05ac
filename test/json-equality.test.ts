import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/canonical-json.js';
import { sameCanonicalJson } from '../src/json-equality.js';
import { propertyRuns } from './support/property-runs.js';

/** JSON-like values with what JSON prints differently: undefined, numbers that are not finite, -0. */
const { json: jsonArbitrary } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, '', 'x', 0, -0, 1, Number.NaN, Number.NEGATIVE_INFINITY, true, false),
    fc.string({ maxLength: 3 }),
    fc.array(fc.oneof(tie('json'), fc.constant(undefined)), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('k', 'l', '0', '10'), fc.oneof(tie('json'), fc.constant(undefined)), {
      maxKeys: 3,
    }),
  ),
}));

/** The same value with every object's keys in another order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).reverse();
  return Object.fromEntries(keys.map((key) => [key, reordered((value as Record<string, unknown>)[key])]));
}

describe('sameCanonicalJson', () => {
  it('is true exactly when canonicalJson prints the two alike', () => {
    fc.assert(
      fc.property(jsonArbitrary, jsonArbitrary, fc.boolean(), (a, b, alike) => {
        const other = alike ? reordered(a) : b;

        expect(sameCanonicalJson(a, other)).toBe(canonicalJson(a) === canonicalJson(other));
      }),
      { numRuns: propertyRuns({ small: 500, large: 2000 }) },
    );
  });

  it('leaves a __proto__ key out, as canonicalJson does', () => {
    const withProto = JSON.parse('{"a":1,"__proto__":{"b":2}}') as unknown;

    expect(sameCanonicalJson(withProto, { a: 1 })).toBe(true);
    expect(canonicalJson(withProto)).toBe(canonicalJson({ a: 1 }));
  });
});
