import ipaddr from 'ipaddr.js';
import { parseDottedQuad } from './dotted-quad.js';

export type CidrCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: 'invalid_cidr' | 'cidr_host_bits'; readonly message: string };

/**
 * An IP (v4 or v6) or a CIDR range written as its network address, the form
 * the service stores and the planner compares. `10.0.0.5/24` is refused with
 * the canonical `10.0.0.0/24` as a hint rather than silently widened.
 */
export function checkCidr(value: string): CidrCheck {
  const [address, prefix, extra] = value.split('/');
  if (address === undefined || extra !== undefined || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) {
    return invalid(value);
  }
  const octets = parseDottedQuad(address);
  const ipv6 = octets === undefined ? parseIpv6(address) : undefined;
  if (octets === undefined && ipv6 === undefined) return invalid(value);
  if (prefix === undefined) return { ok: true };
  const bits = Number(prefix);
  const maxBits = octets !== undefined ? 32 : 128;
  if (bits > maxBits) {
    return {
      ok: false,
      code: 'invalid_cidr',
      message: `prefix /${bits} is longer than ${maxBits} bits (found "${value}")`,
    };
  }
  if (octets !== undefined) return checkIpv4HostBits(value, octets, bits);
  return checkIpv6HostBits(value, ipv6 as ipaddr.IPv6, bits);
}

/** The address as ipaddr.js reads it (what `IPv6.isValid` accepts), or undefined. */
function parseIpv6(address: string): ipaddr.IPv6 | undefined {
  if (!address.includes(':')) return undefined;
  try {
    return ipaddr.IPv6.parse(address);
  } catch {
    return undefined;
  }
}

/**
 * The IPv6 case of the host-bits check on the address parsed once (parsing
 * it three times, as `networkAddressFromCIDR` and `ipaddr.parse` do, was most
 * of the load's checks at 10,000 rules). Network and address compare equal
 * exactly when their RFC 5952 strings would: the network address never
 * carries a zone (`%eth0`), so an address with one always differs.
 */
function checkIpv6HostBits(value: string, parsed: ipaddr.IPv6, bits: number): CidrCheck {
  const networkParts = parsed.parts.map((part, index) => {
    const kept = Math.min(16, Math.max(0, bits - index * 16));
    return kept === 0 ? 0 : part & ((0xffff << (16 - kept)) & 0xffff);
  });
  const same = !parsed.zoneId && networkParts.every((part, index) => part === parsed.parts[index]);
  if (same) return { ok: true };
  const network = new ipaddr.IPv6(networkParts).toString();
  return {
    ok: false,
    code: 'cidr_host_bits',
    message: `"${value}" has host bits set; write the network address: ${network}/${bits}`,
  };
}

/** The IPv4 case of the host-bits check in integer arithmetic, without parsing the address again. */
function checkIpv4HostBits(
  value: string,
  octets: readonly [number, number, number, number],
  bits: number,
): CidrCheck {
  const address = ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  const network = (address & mask) >>> 0;
  if (network === address) return { ok: true };
  const dotted = [network >>> 24, (network >>> 16) & 0xff, (network >>> 8) & 0xff, network & 0xff].join('.');
  return {
    ok: false,
    code: 'cidr_host_bits',
    message: `"${value}" has host bits set; write the network address: ${dotted}/${bits}`,
  };
}

function invalid(value: string): CidrCheck {
  return {
    ok: false,
    code: 'invalid_cidr',
    message: `expected an IP or a CIDR range such as 203.0.113.0/24 (found "${value}")`,
  };
}
