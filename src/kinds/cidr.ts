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
    return `${addressText}/${Number(prefixText)}`;
  }
  const address = parseStrictAddress(addressText);
  if (address === undefined) return value;
  const maxPrefix = address.kind() === 'ipv4' ? 32 : 128;
  if (prefixText === undefined) return `${address.toString()}/${maxPrefix}`;
  if (!/^\d{1,3}$/.test(prefixText)) return value;
  const prefix = Number(prefixText);
  if (prefix > maxPrefix) return value;
  return `${address.toString()}/${prefix}`;
}

function parseStrictAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  // ipaddr.js also accepts IPv4 forms such as "0x7f.1" that the service does not: only dotted quads count.
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (text.includes(':') && ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return undefined;
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
  const canonical = canonicalCidr(value);
  const slash = canonical.indexOf('/');
  if (slash === -1) return undefined;
  const addressText = canonical.slice(0, slash);
  const prefixText = canonical.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const address = parseStrictAddress(addressText);
  if (address === undefined) return undefined;
  const bits = address.kind() === 'ipv4' ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > bits) return undefined;
  let number = 0n;
  for (const byte of address.toByteArray()) number = (number << 8n) | BigInt(byte);
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  const first = number & ~hostMask;
  return { family: address.kind(), first, last: first | hostMask };
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
