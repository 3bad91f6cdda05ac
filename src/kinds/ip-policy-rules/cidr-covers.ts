import ipaddr from 'ipaddr.js';

/**
 * The ways to hold the addresses of `cidr` under temporary deny rules
 * (AccessDecision.guardCovers), in order of preference: the CIDR itself,
 * each CIDR around it (one bit shorter each, down to /0, smallest first),
 * then its two halves (one bit longer each: what covers 0.0.0.0/0 or ::/0,
 * around which there is nothing). None for a value that is no CIDR.
 */
export function cidrCovers(cidr: string): string[][] {
  if (!ipaddr.isValidCIDR(cidr)) return [];
  const halves = halvesOf(cidr);
  return [
    [cidr],
    ...enclosingCidrs(cidr).map((around) => [around]),
    ...(halves.length === 0 ? [] : [halves]),
  ];
}

/** The CIDRs around `cidr`, smallest first: one bit shorter each, down to /0. */
function enclosingCidrs(cidr: string): string[] {
  const [address, prefix] = ipaddr.parseCIDR(cidr);
  const family = address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
  const around: string[] = [];
  for (let length = prefix - 1; length >= 0; length -= 1)
    around.push(`${family.networkAddressFromCIDR(`${address.toString()}/${length}`).toString()}/${length}`);
  return around;
}

/** The two CIDRs one bit longer that together cover `cidr`; none for a single address. */
function halvesOf(cidr: string): string[] {
  const [address, prefix] = ipaddr.parseCIDR(cidr);
  const bytes = address.toByteArray();
  const bits = bytes.length * 8;
  if (prefix >= bits) return [];
  let first = 0n;
  for (const byte of bytes) first = (first << 8n) | BigInt(byte);
  first &= ~((1n << BigInt(bits - prefix)) - 1n);
  const second = first | (1n << BigInt(bits - prefix - 1));
  return [first, second].map((number) => {
    const out: number[] = [];
    for (let index = bytes.length - 1; index >= 0; index -= 1)
      out[index] = Number((number >> BigInt((bytes.length - 1 - index) * 8)) & 0xffn);
    return `${ipaddr.fromByteArray(out).toString()}/${prefix + 1}`;
  });
}
