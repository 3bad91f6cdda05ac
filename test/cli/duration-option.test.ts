import { describe, expect, it } from 'vitest';
import { parseDuration, parsePercentage, parseRate } from '../../src/cli/duration-option.js';

describe('parseDuration: every duration flag', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1.5s', 1500],
    [' 2 s ', 2000],
    ['30000', 30_000],
    ['0', 0],
  ])('reads %o as %i ms (a bare number is milliseconds)', (text, expected) => {
    expect(parseDuration('--timeout', text)).toBe(expected);
  });

  it.each(['', 's', '-1s', '30 seconds', '5w', '1e3', 'off'])(
    'refuses %o, naming the flag and the value',
    (text) => {
      expect(() => parseDuration('--interval', text)).toThrow(
        `--interval: expected a duration like 500ms, 30s or 5m (found "${text}")`,
      );
    },
  );
});

describe('parseRate: every rate flag', () => {
  it.each([
    ['120/60s', { requests: 120, windowMs: 60_000 }],
    ['120/60', { requests: 120, windowMs: 60_000 }],
    ['10/500ms', { requests: 10, windowMs: 500 }],
    ['100/1m', { requests: 100, windowMs: 60_000 }],
    ['100/1h', { requests: 100, windowMs: 3_600_000 }],
    [' 5 / 2s ', { requests: 5, windowMs: 2000 }],
    ['5/2', { requests: 5, windowMs: 2000 }],
  ])('reads %o (a bare window is seconds)', (text, expected) => {
    expect(parseRate('--rate-limit', text)).toEqual(expected);
  });

  it.each(['', '120', '0/60s', '120/0s', 'abc/60s', '-1/60s', '1.5/60s', '120/s', '120/60d', 'off'])(
    'refuses %o, naming the expected form and the value found',
    (text) => {
      const parse = (): unknown => parseRate('--rate-limit', text);

      expect(parse).toThrow(/^--rate-limit: rate limit must look like 120\/60s/);
      expect(parse).toThrow(`(found "${text}")`);
    },
  );

  it('takes off only where the flag can be switched off', () => {
    expect(parseRate('--rate-limit', 'off', { allowOff: true })).toBe('off');
    expect(parseRate('--rate-limit', '120/60s', { allowOff: true })).toEqual({
      requests: 120,
      windowMs: 60_000,
    });
  });
});

describe('parsePercentage: --read-share', () => {
  it.each([
    ['25%', 0.25],
    ['25', 0.25],
    [' 100 % ', 1],
    ['2.5%', 0.025],
  ])('reads %o as the fraction %d', (text, expected) => {
    expect(parsePercentage('--read-share', text)).toBe(expected);
  });

  it.each(['', '0%', '0', '101%', '-5%', '0.25x', 'quarter'])(
    'refuses %o, naming the flag and the value',
    (text) => {
      expect(() => parsePercentage('--read-share', text)).toThrow(
        `--read-share: expected a percentage above 0 and at most 100, like 25% (found "${text}")`,
      );
    },
  );
});
