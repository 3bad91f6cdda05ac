import { describe, expect, it } from 'vitest';
import { isWellFormedId, ResourceIds } from '../../src/emulator/resource-id.js';

describe('ResourceIds', () => {
  it.each([
    ['a clock that stands still', () => 1_800_000_000_000],
    [
      'a clock that runs backwards',
      (() => {
        let ms = 1_800_000_000_000;
        return () => (ms -= 7);
      })(),
    ],
    [
      'a clock that runs forwards',
      (() => {
        let ms = 1_800_000_000_000;
        return () => (ms += 1);
      })(),
    ],
  ])('makes well-formed IDs that sort in creation order under %s', (_, now) => {
    const ids = new ResourceIds(now);

    const made = Array.from({ length: 500 }, () => ids.next('ip_policy_rule'));

    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
    expect(made.every((id) => isWellFormedId('ip_policy_rule', id))).toBe(true);
  });
});
