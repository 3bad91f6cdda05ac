import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical-json.js';
import type { FieldRule } from '../../src/kinds/kind.js';
import { normalizeSetLike } from '../../src/kinds/set-like.js';
import { diffFields, fieldEquals, removalChanges } from '../../src/plan/compare-fields.js';
import { propertyRuns } from '../support/property-runs.js';

/** Field rules of every shape the comparison looks at: sensitive, set-like, replacing. */
const ruleArbitrary: fc.Arbitrary<FieldRule> = fc.record(
  {
    name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    onChange: fc.constantFrom<'update' | 'replace'>('update', 'replace'),
    sensitive: fc.boolean(),
    setLike: fc.boolean(),
  },
  { requiredKeys: ['name', 'onChange'] },
);

const rulesArbitrary = fc.uniqueArray(ruleArbitrary, { selector: (rule) => rule.name, maxLength: 5 });

/** Values a service may answer with, unset ones included (undefined, null, "", []). */
const valueArbitrary: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(undefined, null, '', [], 'x', 'y', 0, false),
  fc.string({ maxLength: 4 }),
  fc.array(fc.constantFrom('x', 'y', 'z', 1), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('k', 'l'), fc.constantFrom('x', null, 1), { maxKeys: 2 }),
);

const specArbitrary = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), valueArbitrary, { maxKeys: 5 });

describe('field comparison', () => {
  it('a delete shows what diffFields against nothing shows, field for field', () => {
    fc.assert(
      fc.property(rulesArbitrary, specArbitrary, (rules, live) => {
        expect(removalChanges(rules, live)).toEqual(diffFields(rules, undefined, live, ''));
      }),
      { numRuns: propertyRuns({ small: 100, large: 500 }) },
    );
  });

  it('no field change between two specs exactly when every field is equal under its rule', () => {
    fc.assert(
      fc.property(rulesArbitrary, specArbitrary, specArbitrary, (rules, desired, live) => {
        const unchanged = diffFields(rules, desired, live, '').length === 0;
        expect(rules.every((rule) => fieldEquals(rule, desired[rule.name], live[rule.name]))).toBe(unchanged);
      }),
      { numRuns: propertyRuns({ small: 100, large: 500 }) },
    );
  });

  it('two comparable forms are equal exactly when their canonical JSON is, unset values alike', () => {
    fc.assert(
      fc.property(ruleArbitrary, jsonArbitrary, jsonArbitrary, fc.boolean(), (rule, a, b, same) => {
        // A form holds a set-like list already sorted (normalizeDesired, fromApi); half the pairs are alike.
        const desired = rule.setLike ? normalizeSetLike(a) : a;
        const live = same ? shuffledCopy(desired) : rule.setLike ? normalizeSetLike(b) : b;

        expect(fieldEquals(rule, desired, live)).toBe(printedEqual(rule, desired, live));
      }),
      { numRuns: propertyRuns({ small: 300, large: 2000 }) },
    );
  });

  it.each([
    ['an undefined property as an absent one', { a: 1, b: undefined }, { a: 1 }, true],
    ['keys in any order', { a: 1, b: { c: [1, 2], d: 'x' } }, { b: { d: 'x', c: [1, 2] }, a: 1 }, true],
    ['an undefined list item as null', [1, undefined], [1, null], true],
    ['a number that is not finite as null', [Number.NaN, Number.POSITIVE_INFINITY], [null, null], true],
    ['-0 as 0', { a: -0 }, { a: 0 }, true],
    ['a __proto__ key as absent', JSON.parse('{"a":1,"__proto__":{"b":2}}'), { a: 1 }, true],
    ['a string apart from the number it spells', { a: '1' }, { a: 1 }, false],
    ['a list apart from its one item', { a: ['x'] }, { a: 'x' }, false],
    ['an empty object apart from unset', {}, null, false],
    ['unset values alike', '', [], true],
  ])('compares %s as canonical JSON does', (_name, desired, live, equal) => {
    const rule: FieldRule = { name: 'a', onChange: 'update' };

    expect(fieldEquals(rule, desired, live)).toBe(equal);
    expect(printedEqual(rule, desired, live)).toBe(equal);
  });
});

/** What the comparison was before it stopped printing: the canonical JSON of both sides, unset ones as null. */
function printedEqual(rule: FieldRule, desired: unknown, live: unknown): boolean {
  if (rule.sensitive === true && live === undefined && desired !== undefined) return true;
  return printed(rule, desired) === printed(rule, live);
}

function printed(rule: FieldRule, value: unknown): string | undefined {
  const unset =
    value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
  if (unset) return 'null';
  return canonicalJson(rule.setLike ? normalizeSetLike(value) : value);
}

/** JSON-like values with what JSON prints differently: undefined, numbers that are not finite, -0. */
const { json: jsonArbitrary } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(
      undefined,
      null,
      '',
      'x',
      'y',
      0,
      -0,
      1,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      false,
    ),
    fc.string({ maxLength: 3 }),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('k', 'l', 'm'), tie('json'), { maxKeys: 3 }),
  ),
}));

/** The same value with every object's keys in another order. */
function shuffledCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shuffledCopy);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).reverse();
  return Object.fromEntries(keys.map((key) => [key, shuffledCopy((value as Record<string, unknown>)[key])]));
}
