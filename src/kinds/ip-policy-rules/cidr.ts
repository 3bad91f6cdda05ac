import ipaddr from 'ipaddr.js';
import { parseDottedQuad } from './dotted-quad.js';

/**
 * The one spelling of an IP or CIDR that both sides are compared in:
 * lowercase, IPv6 compressed (RFC 5952), a bare address gets /32 or /128.
 * Host bits are kept: the service stores the range as written. A value that
 * does not parse is returned unchanged, for validation to report.
 */
export function canonicalCidr(value: string): string {
  const trimmed = value.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const prefixText = slash === -1 ? undefined : trimmed.slice(slash + 1);
  if (parseDottedQuad(addressText) !== undefined) {
    // A dotted quad is its own canonical spelling.
    if (prefixText === undefined) return `${addressText}/32`;
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > 32) return value;
    const canonical = `${addressText}/${Number(prefixText)}`;
    // The same text, not a copy of it: the planner keeps one per entry and per live rule.
    return canonical === value ? value : canonical;
  }
  if (isCanonicalIpv6(addressText)) {
    // Already as ipaddr.js would print it: no parse and print of it (two per rule, read and planned).
    if (prefixText === undefined) return `${addressText}/128`;
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > 128) return value;
    const canonical = `${addressText}/${Number(prefixText)}`;
    return canonical === value ? value : canonical;
  }
  const address = parseStrictAddress(addressText);
  if (address === undefined) return value;
  const maxPrefix = address.kind() === 'ipv4' ? 32 : 128;
  if (prefixText === undefined) return `${address.toString()}/${maxPrefix}`;
  if (!/^\d{1,3}$/.test(prefixText)) return value;
  const prefix = Number(prefixText);
  if (prefix > maxPrefix) return value;
  const canonical = `${address.toString()}/${prefix}`;
  return canonical === value ? value : canonical;
}

const IPV6_GROUP = /^(?:0|[1-9a-f][0-9a-f]{0,3})$/;

/**
 * Whether `text` is an IPv6 address exactly as ipaddr.js's `toString`
 * (RFC 5952) prints it: lowercase groups without leading zeros, and `::`
 * for the longest run of two or more zero groups (the first of equal runs),
 * nowhere else. A false answer only means "parse it to find out".
 */
export function isCanonicalIpv6(text: string): boolean {
  const gap = text.indexOf('::');
  if (gap !== -1 && text.indexOf('::', gap + 1) !== -1) return false;
  const left = gap === -1 ? text.split(':') : gap === 0 ? [] : text.slice(0, gap).split(':');
  const right = gap === -1 || gap + 2 === text.length ? [] : text.slice(gap + 2).split(':');
  const groups = left.length + right.length;
  if (gap === -1 ? groups !== 8 : groups > 6) return false;
  for (const group of left) if (!IPV6_GROUP.test(group)) return false;
  for (const group of right) if (!IPV6_GROUP.test(group)) return false;
  // Without `::`, any run of two zero groups would have been compressed.
  if (gap === -1) return longestZeroRun(left) < 2;
  // The run `::` stands for must be all of its run, and the longest: a run as long to its left
  // would have been the one compressed.
  const compressed = 8 - groups;
  if (left[left.length - 1] === '0' || right[0] === '0') return false;
  return longestZeroRun(left) < compressed && longestZeroRun(right) <= compressed;
}

function longestZeroRun(groups: readonly string[]): number {
  let longest = 0;
  let run = 0;
  for (const group of groups) {
    run = group === '0' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

function parseStrictAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  // ipaddr.js also accepts IPv4 forms such as "0x7f.1" that the service does not: only dotted quads count.
  // parseDottedQuad is that test without ipaddr.js's isValidFourPartDecimal, which builds and throws an
  // Error for every IPv6 text it is asked about (most of the planner's time at 10,000 rules, docs/performance.md).
  const octets = parseDottedQuad(text);
  if (octets !== undefined) return new ipaddr.IPv4([...octets]);
  if (!text.includes(':')) return undefined;
  try {
    return ipaddr.IPv6.parse(text);
  } catch {
    return undefined;
  }
}

/** The addresses a CIDR covers, as numbers in its family's address space. */
export interface CidrRange {
  readonly family: 'ipv4' | 'ipv6';
  readonly first: bigint;
  readonly last: bigint;
}

/**
 * First and last address of a CIDR (host bits ignored, a bare address is a
 * range of one), or undefined when it does not parse.
 */
export function cidrRange(value: string): CidrRange | undefined {
  const ipv4 = ipv4Range(value);
  if (ipv4 !== undefined) return ipv4;
  // Parsed once, as canonicalCidr would parse it (which adds only a spelling, not a different range).
  const trimmed = value.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const address = parseStrictAddress(addressText);
  if (address === undefined) return undefined;
  const prefixText = slash === -1 ? String(address.kind() === 'ipv4' ? 32 : 128) : trimmed.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const bits = address.kind() === 'ipv4' ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > bits) return undefined;
  let number = 0n;
  // By 16-bit groups for IPv6: half the BigInts of going by bytes, once per rule planned.
  if (address instanceof ipaddr.IPv6)
    for (const part of address.parts) number = (number << 16n) | BigInt(part);
  else for (const byte of address.toByteArray()) number = (number << 8n) | BigInt(byte);
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  const first = number & ~hostMask;
  return { family: address.kind(), first, last: lastOf(first, hostMask) };
}

/** The range of a dotted-quad CIDR (or bare address) read straight from its octets; undefined otherwise. */
function ipv4Range(value: string): CidrRange | undefined {
  const trimmed = value.trim();
  const slash = trimmed.indexOf('/');
  const octets = parseDottedQuad(slash === -1 ? trimmed : trimmed.slice(0, slash));
  if (octets === undefined) return undefined;
  const prefixText = slash === -1 ? '32' : trimmed.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > 32) return undefined;
  // In 32-bit unsigned numbers, made BigInts only at the end: the BigInt masks were six BigInts per
  // rule planned, most of the plan's time in cidrRange at 10,000 rules (docs/performance.md).
  const number = ((octets[0] << 24) >>> 0) + (octets[1] << 16) + (octets[2] << 8) + octets[3];
  const networkMask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const first = (number & networkMask) >>> 0;
  const last = (first | ~networkMask) >>> 0;
  const firstBig = BigInt(first);
  return { family: 'ipv4', first: firstBig, last: last === first ? firstBig : BigInt(last) };
}

/** The last address of a range: the first itself for a single address, not a BigInt of its own (one per rule planned). */
function lastOf(first: bigint, hostMask: bigint): bigint {
  return hostMask === 0n ? first : first | hostMask;
}

/**
 * Whether two CIDRs share an address: one contains the other's network
 * address. IPv4 and IPv6 ranges never do, and a value that does not parse
 * is treated as overlapping everything, so that a caller relying on
 * disjointness errs on the safe side.
 */
export function cidrsOverlap(a: string, b: string): boolean {
  const left = cidrRange(a);
  const right = cidrRange(b);
  if (left === undefined || right === undefined) return true;
  return left.family === right.family && left.first <= right.last && right.first <= left.last;
}
