import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical-json.js';
import { checkCidr } from '../../src/kinds/ip-policy-rules/check-cidr.js';
import { canonicalCidr } from '../../src/kinds/ip-policy-rules/cidr.js';
import { propertyRuns } from '../support/property-runs.js';

/** The sorted-copy-then-JSON.stringify implementation the fast serializer replaced. */
function sortedCopyJson(value: unknown): string {
  const sortKeysDeep = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(sortKeysDeep);
    if (item === null || typeof item !== 'object') return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) {
      const entry = (item as Record<string, unknown>)[key];
      if (entry !== undefined) sorted[key] = sortKeysDeep(entry);
    }
    return sorted;
  };
  return JSON.stringify(sortKeysDeep(value));
}

/** canonicalCidr through ipaddr.js alone, as before the dotted-quad shortcut. */
function ipaddrCanonicalCidr(value: string): string {
  const trimmed = value.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const prefixText = slash === -1 ? undefined : trimmed.slice(slash + 1);
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(addressText)) address = ipaddr.IPv4.parse(addressText);
  else if (addressText.includes(':') && ipaddr.IPv6.isValid(addressText))
    address = ipaddr.IPv6.parse(addressText);
  else return value;
  const maxPrefix = address.kind() === 'ipv4' ? 32 : 128;
  if (prefixText === undefined) return `${address.toString()}/${maxPrefix}`;
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > maxPrefix) return value;
  return `${address.toString()}/${Number(prefixText)}`;
}

/** checkCidr's IPv4 verdict through ipaddr.js alone. */
function ipaddrHostBits(value: string): string | 'ok' | 'invalid' {
  const [address, prefix, extra] = value.split('/');
  if (address === undefined || extra !== undefined || (prefix !== undefined && !/^\d{1,3}$/.test(prefix)))
    return 'invalid';
  if (!ipaddr.IPv4.isValidFourPartDecimal(address)) return 'invalid';
  if (prefix === undefined) return 'ok';
  if (Number(prefix) > 32) return 'invalid';
  const network = ipaddr.IPv4.networkAddressFromCIDR(value).toString();
  return network === ipaddr.parse(address).toString() ? 'ok' : `${network}/${Number(prefix)}`;
}

const octet = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map(String),
  fc.constantFrom('256', '999', '01', '00', '007', '1000', '', 'x'),
);
const ipv4ish = fc
  .tuple(
    octet,
    octet,
    octet,
    octet,
    fc.option(fc.oneof(fc.integer({ min: 0, max: 40 }).map(String), fc.constantFrom('08', '', '1x'))),
  )
  .map(([a, b, c, d, prefix]) => `${a}.${b}.${c}.${d}${prefix === null ? '' : `/${prefix}`}`);

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: [3, undefined, { d: 1, c: 2 }], u: undefined }],
    [{ 10: 'x', 9: 'y', b: 1, a: 2 }],
    [JSON.parse('{"__proto__": {"x": 1}, "a": 1}')],
    [[undefined, () => 1, Symbol('s')]],
    [{ f: () => 1, s: Symbol('s'), n: null }],
    ['text'],
    [42],
    [null],
  ])('prints %j as the sorted copy did', (value) => {
    expect(canonicalJson(value)).toBe(sortedCopyJson(value));
  });

  it('prints any JSON-like value as the sorted copy did', () => {
    fc.assert(
      fc.property(
        fc.anything({ withObjectString: true, withNullPrototype: true, withSparseArray: true }),
        (value) => {
          expect(canonicalJson(value)).toBe(sortedCopyJson(value));
        },
      ),
      { numRuns: propertyRuns({ small: 300, large: 2000 }) },
    );
  });
});

/** IPv6-like text: groups drawn mostly from zeros (so runs of every length), written canonically or not. */
const ipv6Group = fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
const ipv6ish = fc
  .tuple(
    fc.array(ipv6Group, { minLength: 8, maxLength: 8 }),
    fc.constantFrom('canonical', 'full', 'padded', 'upper', 'compress-first-zero', 'mangled'),
    fc.option(fc.oneof(fc.integer({ min: 0, max: 130 }).map(String), fc.constantFrom('048', '', 'x'))),
    fc.integer({ min: 0, max: 7 }),
  )
  .map(([parts, form, prefix, at]) => {
    const canonical = new ipaddr.IPv6(parts).toString();
    const full = parts.map((part) => part.toString(16)).join(':');
    let text: string;
    if (form === 'canonical') text = canonical;
    else if (form === 'full') text = full;
    else if (form === 'padded') text = parts.map((part) => part.toString(16).padStart(4, '0')).join(':');
    else if (form === 'upper') text = canonical.toUpperCase();
    else if (form === 'compress-first-zero') {
      // `::` over the first zero run, which need not be the longest, or over a lone zero group.
      const groups = full.split(':');
      const start = groups.indexOf('0');
      let end = start;
      while (start !== -1 && groups[end + 1] === '0') end += 1;
      text = start === -1 ? full : [...groups.slice(0, start), '', ...groups.slice(end + 1)].join(':');
      if (text.startsWith(':')) text = `:${text}`;
      if (text.endsWith(':')) text = `${text}:`;
    } else text = `${canonical.slice(0, at)}:${canonical.slice(at)}`;
    return `${text}${prefix === null ? '' : `/${prefix}`}`;
  });

describe('IPv6 shortcut', () => {
  it('canonicalCidr spells every IPv6-like value as ipaddr.js does', () => {
    fc.assert(
      fc.property(ipv6ish, (value) => {
        expect(canonicalCidr(value)).toBe(ipaddrCanonicalCidr(value));
      }),
      { numRuns: propertyRuns({ small: 600, large: 5000 }) },
    );
  });

  it.each([
    '::',
    '::1',
    '1::',
    '2001:db8::1:0:0:1',
    '2001:db8:0:0:1::1',
    '2001:0:0:1::1',
    '1:0:0:2::3',
    '1::2:0:0:3',
    '0:1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:0',
    '1:2:3:4:5:6::',
    '::ffff:1.2.3.4',
  ])('canonicalCidr spells %s as ipaddr.js does', (address) => {
    for (const value of [address, `${address}/64`])
      expect(canonicalCidr(value)).toBe(ipaddrCanonicalCidr(value));
  });
});

describe('IPv4 shortcut', () => {
  it('canonicalCidr spells every IPv4-like value as ipaddr.js does', () => {
    fc.assert(
      fc.property(ipv4ish, fc.constantFrom('', ' '), (value, pad) => {
        expect(canonicalCidr(`${pad}${value}${pad}`)).toBe(ipaddrCanonicalCidr(`${pad}${value}${pad}`));
      }),
      { numRuns: propertyRuns({ small: 400, large: 3000 }) },
    );
  });

  it('checkCidr judges host bits of every IPv4-like value as ipaddr.js does', () => {
    fc.assert(
      fc.property(ipv4ish, (value) => {
        const expected = ipaddrHostBits(value);
        const result = checkCidr(value);

        if (expected === 'ok') expect(result).toEqual({ ok: true });
        else if (expected === 'invalid') expect(result).toMatchObject({ ok: false, code: 'invalid_cidr' });
        else
          expect(result).toMatchObject({
            ok: false,
            code: 'cidr_host_bits',
            message: expect.stringContaining(`: ${expected}`),
          });
      }),
      { numRuns: propertyRuns({ small: 400, large: 3000 }) },
    );
  });
});
