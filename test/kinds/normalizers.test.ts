import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical-json.js';
import { canonicalPem } from '../../src/kinds/certificate-authorities/pem.js';
import { canonicalCidr } from '../../src/kinds/ip-policy-rules/cidr.js';
import { normalizeSetLike } from '../../src/kinds/set-like.js';

describe('canonicalCidr', () => {
  it.each([
    ['203.0.113.0/24', '203.0.113.0/24'],
    [' 203.0.113.0/24 ', '203.0.113.0/24'],
    ['203.0.113.7', '203.0.113.7/32'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1/128'],
    ['2001:db8:0:0:1:0:0:1/64', '2001:db8::1:0:0:1/64'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['::/0', '::/0'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalCidr(input)).toBe(expected);
  });

  it.each(['not-an-ip', '10.0.0.0/33', '2001:db8::/129', '0x7f.1/8', '10.0.0.0/abc', '10.0.0/8'])(
    'leaves %s unchanged for validation to report',
    (input) => {
      expect(canonicalCidr(input)).toBe(input);
    },
  );
});

describe('canonicalPem', () => {
  const body = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

  it.each([
    ['no trailing newline', body],
    ['one trailing newline', `${body}\n`],
    ['several trailing newlines', `${body}\n\n\n`],
    ['CRLF line ends', `${body.replaceAll('\n', '\r\n')}\r\n`],
    ['trailing spaces', `${body}\n  \n`],
  ])('%s gives exactly one trailing LF', (_label, input) => {
    expect(canonicalPem(input)).toBe(`${body}\n`);
  });
});

describe('normalizeSetLike', () => {
  it.each([
    [
      ['b', 'a', 'b'],
      ['a', 'b'],
    ],
    [[], []],
    [['z'], ['z']],
  ])('%j → %j', (input, expected) => {
    expect(normalizeSetLike(input)).toEqual(expected);
  });

  it('keeps non-string members (pending IDs) after the strings', () => {
    const pending = { $createdBy: 'create:certificate_authorities.corp' };

    expect(normalizeSetLike(['b', pending, 'a'])).toEqual(['a', 'b', pending]);
  });
});

describe('canonicalJson', () => {
  it('sorts keys recursively, keeps array order, drops undefined', () => {
    const value = { b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } };

    expect(canonicalJson(value)).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
  });
});
