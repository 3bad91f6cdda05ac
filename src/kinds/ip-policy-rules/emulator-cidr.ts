import ipaddr from 'ipaddr.js';

/**
 * The canonical form the emulator stores and returns: IPv6 lowercase and
 * compressed. A bare address is refused, as the service family refuses it:
 * the prefix length says how much is allowed or denied, so it is never guessed. A CIDR with
 * host bits set (`10.0.0.5/24`) is rejected rather than silently widened or
 * narrowed: the caller most likely meant something else. Returns null when
 * `value` is not an IP or CIDR.
 */
export function canonicalCidr(
  value: string,
):
  | { readonly cidr: string }
  | { readonly fault: 'bare-address' | 'host-bits'; readonly error: string }
  | null {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  let prefix: number;
  try {
    if (value.includes('/')) {
      if (!/\/\d{1,3}$/.test(value)) return null;
      [address, prefix] = ipaddr.parseCIDR(value);
    } else {
      if (!ipaddr.isValid(value)) return null;
      const full = ipaddr.parse(value).kind() === 'ipv4' ? 32 : 128;
      return {
        fault: 'bare-address',
        error: `needs a prefix length, e.g. ${value}/${full} for this one address`,
      };
    }
  } catch {
    return null;
  }
  if (address.kind() === 'ipv4' && !ipaddr.IPv4.isValidFourPartDecimal(address.toString())) return null;
  if (address.kind() === 'ipv4' && !ipaddr.IPv4.isValidFourPartDecimal(value.split('/')[0] ?? ''))
    return null;
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${prefix}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${prefix}`);
  const canonical = `${network.toString()}/${prefix}`;
  if (network.toString() !== address.toString()) {
    return { fault: 'host-bits', error: `has host bits set; the network is ${canonical}` };
  }
  return { cidr: canonical };
}
