import ipaddr from 'ipaddr.js';

/** A DNS label: 1 to 63 letters, digits and hyphens, not starting or ending with a hyphen. */
const DNS_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const MAX_DNS_NAME = 253;

/** The one port the service family serves HTTPS edges on. */
export const HTTPS_PORT = 443;

/**
 * Why the service family refuses an HTTPS edge's hostport, in the order it
 * is judged: `malformed` (not `name:port`, or the name is no DNS name),
 * `port-range` (a port number outside 1 to 65535), `not-a-domain` (an IP
 * address, which is never a reserved domain), `port` (a port other than 443).
 */
export type HostportFault = 'malformed' | 'port-range' | 'not-a-domain' | 'port';

/** A wildcard first label (`*.example.com`) is a name too: the family serves wildcard domains. */
function isDnsName(host: string): boolean {
  return (
    host.length > 0 &&
    host.length <= MAX_DNS_NAME &&
    host.split('.').every((label, index) => DNS_LABEL.test(label) || (index === 0 && label === '*'))
  );
}

/** `1.2.3.4`, `[2001:db8::1]`, or a name of digits and dots only (which no registry hands out). */
function isAddress(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  // ipaddr.js, not node:net's isIP: validate never loads the network modules (its start time).
  return ipaddr.IPv6.isValid(bare) || /^[0-9.]+$/.test(host);
}

/** What is wrong, finer than the family's numbers: no port and a bad name are both `malformed`. */
type HostportDefect = 'port-syntax' | 'port-range' | 'name' | 'address' | 'port';

function hostportDefect(hostport: string): HostportDefect | undefined {
  const colon = hostport.lastIndexOf(':');
  const host = colon === -1 ? hostport : hostport.slice(0, colon);
  const portText = colon === -1 ? '' : hostport.slice(colon + 1);
  if (!/^\d+$/.test(portText)) return 'port-syntax';
  if (isAddress(host)) return 'address';
  if (!isDnsName(host)) return 'name';
  if (Number(portText) < 1 || Number(portText) > 65535) return 'port-range';
  if (Number(portText) !== HTTPS_PORT) return 'port';
  return undefined;
}

/** What is wrong with an HTTPS edge's hostport, or undefined when the family would take it. */
export function hostportFault(hostport: string): HostportFault | undefined {
  const defect = hostportDefect(hostport);
  if (defect === undefined) return undefined;
  if (defect === 'address') return 'not-a-domain';
  if (defect === 'port-range' || defect === 'port') return defect;
  return 'malformed';
}

/**
 * What is wrong with a `hostname:port` the service would refuse, or
 * undefined: a DNS name (labels per RFC 1123, at most 253 characters; a
 * first label may be `*`), not an IP address, on port 443, the one port the
 * family serves HTTPS edges on.
 */
export function hostportProblem(hostport: string): string | undefined {
  const found = `(found ${JSON.stringify(hostport)})`;
  switch (hostportDefect(hostport)) {
    case undefined:
      return undefined;
    case 'port-syntax':
      return `expected port ${HTTPS_PORT} after the last ":" ${found}`;
    case 'port-range':
      return `expected port ${HTTPS_PORT}; a port is a number from 1 to 65535 ${found}`;
    case 'name':
      return `expected a DNS name of at most ${MAX_DNS_NAME} characters whose dot-separated labels are 1 to 63 letters, digits and inner hyphens ${found}`;
    case 'address':
      return `expected a domain name, not an IP address: the service serves HTTPS edges on domains only ${found}`;
    case 'port':
      return `expected port ${HTTPS_PORT}: the service serves HTTPS edges on port ${HTTPS_PORT} only ${found}`;
  }
}
