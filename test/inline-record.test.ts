import { describe, expect, it } from 'vitest';
import { inlineRecord } from '../src/inline-record.js';

describe('inlineRecord', () => {
  it('is a plain object with the keys in their order and the values given', () => {
    const record = inlineRecord(
      ['description', 'metadata', 'cidr', 'action', 'ip_policy_id'],
      ['d', 'm', 'c', 'a', 'i'],
    );
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(JSON.stringify(record)).toBe(
      '{"description":"d","metadata":"m","cidr":"c","action":"a","ip_policy_id":"i"}',
    );
  });

  it('shares nothing between two records of the same keys', () => {
    const first = inlineRecord(['a', 'b'], [1, { nested: true }]);
    first.a = 'changed';
    const second = inlineRecord(['a', 'b'], [2, undefined]);
    expect(second).toStrictEqual({ a: 2, b: undefined });
    expect(Object.keys(second)).toEqual(['a', 'b']);
    expect(first).toStrictEqual({ a: 'changed', b: { nested: true } });
  });

  it('keeps a __proto__ key an own property, never the prototype', () => {
    const record = inlineRecord(['__proto__', 'x'], [{ polluted: true }, 1]);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(record)).toEqual(['__proto__', 'x']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
