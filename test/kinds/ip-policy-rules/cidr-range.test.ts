import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { cidrRange, cidrsOverlap } from '../../../src/kinds/ip-policy-rules/cidr.js';
import { propertyRuns } from '../../support/property-runs.js';

describe('cidrRange', () => {
  it.each([
    { cidr: '10.0.0.0/8', family: 'ipv4', first: 0x0a000000n, last: 0x0affffffn },
    { cidr: '10.0.0.5/24', family: 'ipv4', first: 0x0a000000n, last: 0x0a0000ffn },
    { cidr: '192.0.2.7', family: 'ipv4', first: 0xc0000207n, last: 0xc0000207n },
    { cidr: '0.0.0.0/0', family: 'ipv4', first: 0n, last: 0xffffffffn },
    { cidr: '2001:DB8::/32', family: 'ipv6', first: 0x20010db8n << 96n, last: (0x20010db9n << 96n) - 1n },
    { cidr: '::/0', family: 'ipv6', first: 0n, last: (1n << 128n) - 1n },
    { cidr: '::1', family: 'ipv6', first: 1n, last: 1n },
  ])('$cidr covers $first..$last', ({ cidr, family, first, last }) => {
    expect(cidrRange(cidr)).toEqual({ family, first, last });
  });

  it.each(['10.0.0.0/33', '2001:db8::/129', '10.0.0/8', 'not an address', '10.0.0.0/x', ''])(
    '%j does not parse',
    (cidr) => {
      expect(cidrRange(cidr)).toBeUndefined();
    },
  );
});

describe('cidrRange agrees with ipaddr.js', () => {
  /** The range ipaddr.js gives: the reference the dotted-quad fast path must match. */
  function reference(address: string, prefix: number): { family: string; first: bigint; last: bigint } {
    const parsed = ipaddr.parse(address);
    const bits = parsed.kind() === 'ipv4' ? 32 : 128;
    let number = 0n;
    for (const byte of parsed.toByteArray()) number = (number << 8n) | BigInt(byte);
    const hostMask = (1n << BigInt(bits - prefix)) - 1n;
    return { family: parsed.kind(), first: number & ~hostMask, last: (number & ~hostMask) | hostMask };
  }

  it('for any dotted quad and prefix', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 32 }), (address, prefix) => {
        expect(cidrRange(`${address}/${prefix}`)).toEqual(reference(address, prefix));
        expect(cidrRange(address)).toEqual(reference(address, 32));
      }),
      { numRuns: propertyRuns({ small: 100, large: 1000 }) },
    );
  });

  it('for any IPv6 address and prefix', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.integer({ min: 0, max: 128 }), (address, prefix) => {
        expect(cidrRange(`${address}/${prefix}`)).toEqual(reference(address, prefix));
      }),
      { numRuns: propertyRuns({ small: 100, large: 1000 }) },
    );
  });
});

describe('cidrsOverlap', () => {
  it.each([
    { a: '10.0.0.0/8', b: '10.1.2.0/24', overlap: true, why: 'the first contains the second' },
    { a: '10.0.0.0/24', b: '10.0.0.0/24', overlap: true, why: 'the same range' },
    { a: '10.0.0.5/24', b: '10.0.0.200/32', overlap: true, why: 'host bits do not narrow a range' },
    { a: '0.0.0.0/0', b: '203.0.113.9', overlap: true, why: 'everything contains a bare address' },
    { a: '10.0.0.0/24', b: '10.0.1.0/24', overlap: false, why: 'adjacent ranges' },
    { a: '10.0.0.0/25', b: '10.0.0.128/25', overlap: false, why: 'the two halves of a /24' },
    { a: '192.0.2.1', b: '192.0.2.2', overlap: false, why: 'two different addresses' },
    { a: '2001:db8::/32', b: '2001:db8:1::/48', overlap: true, why: 'IPv6 containment' },
    { a: '2001:db8::/48', b: '2001:db8:1::/48', overlap: false, why: 'disjoint IPv6 ranges' },
    { a: '0.0.0.0/0', b: '::/0', overlap: false, why: 'IPv4 and IPv6 never overlap' },
    { a: '10.0.0.0/8', b: '::ffff:10.0.0.0/104', overlap: false, why: 'a mapped address is IPv6' },
    { a: '10.0.0.0/8', b: 'garbage', overlap: true, why: 'an unparsable value overlaps everything' },
  ])('$a and $b: $overlap ($why)', ({ a, b, overlap }) => {
    expect(cidrsOverlap(a, b)).toBe(overlap);
    expect(cidrsOverlap(b, a)).toBe(overlap);
  });
});
