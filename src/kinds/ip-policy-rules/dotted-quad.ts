const DOTTED_QUAD = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;

/**
 * The four octets of an IPv4 address written as a plain dotted quad
 * (decimal, no leading zeros, each at most 255): exactly the strings
 * ipaddr.js's `isValidFourPartDecimal` accepts, and already the form its
 * `toString` prints. A cheap first test: CIDR checks run once per rule, on
 * 100,000 rules and more, and parsing each with ipaddr.js dominated them.
 */
export function parseDottedQuad(text: string): readonly [number, number, number, number] | undefined {
  const match = DOTTED_QUAD.exec(text);
  if (match === null) return undefined;
  const octets = [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4])] as const;
  for (const octet of octets) if (octet > 255) return undefined;
  return octets;
}
