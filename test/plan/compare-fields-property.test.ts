import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldRule } from '../../src/kinds/kind.js';
import { diffFields, fieldEquals, removalChanges } from '../../src/plan/compare-fields.js';

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
      { numRuns: 500 },
    );
  });

  it('no field change between two specs exactly when every field is equal under its rule', () => {
    fc.assert(
      fc.property(rulesArbitrary, specArbitrary, specArbitrary, (rules, desired, live) => {
        const unchanged = diffFields(rules, desired, live, '').length === 0;
        expect(rules.every((rule) => fieldEquals(rule, desired[rule.name], live[rule.name]))).toBe(unchanged);
      }),
      { numRuns: 500 },
    );
  });
});
