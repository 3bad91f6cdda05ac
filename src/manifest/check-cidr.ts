import ipaddr from 'ipaddr.js';

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
  const isV4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!isV4 && !ipaddr.IPv6.isValid(address)) return invalid(value);
  if (prefix === undefined) return { ok: true };
  const bits = Number(prefix);
  const maxBits = isV4 ? 32 : 128;
  if (bits > maxBits) {
    return {
      ok: false,
      code: 'invalid_cidr',
      message: `prefix /${bits} is longer than ${maxBits} bits (found "${value}")`,
    };
  }
  const network = isV4
    ? ipaddr.IPv4.networkAddressFromCIDR(value)
    : ipaddr.IPv6.networkAddressFromCIDR(value);
  const parsed = ipaddr.parse(address);
  if (network.toString() !== parsed.toString()) {
    return {
      ok: false,
      code: 'cidr_host_bits',
      message: `"${value}" has host bits set; write the network address: ${network.toString()}/${bits}`,
    };
  }
  return { ok: true };
}

function invalid(value: string): CidrCheck {
  return {
    ok: false,
    code: 'invalid_cidr',
    message: `expected an IP or a CIDR range such as 203.0.113.0/24 (found "${value}")`,
  };
}
