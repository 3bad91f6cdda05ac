/** A DNS label: 1 to 63 letters, digits and hyphens, not starting or ending with a hyphen. */
const DNS_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const MAX_DNS_NAME = 253;

/**
 * What is wrong with a `hostname:port` the service would refuse, or
 * undefined: a DNS name (labels per RFC 1123, at most 253 characters) and a
 * port from 1 to 65535.
 */
export function hostportProblem(hostport: string): string | undefined {
  const colon = hostport.lastIndexOf(':');
  const host = colon === -1 ? hostport : hostport.slice(0, colon);
  const portText = colon === -1 ? '' : hostport.slice(colon + 1);
  const found = `(found ${JSON.stringify(hostport)})`;
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
    return `expected a port from 1 to 65535 after the last ":" ${found}`;
  }
  if (
    host.length === 0 ||
    host.length > MAX_DNS_NAME ||
    !host.split('.').every((label) => DNS_LABEL.test(label))
  ) {
    return `expected a DNS name of at most ${MAX_DNS_NAME} characters whose dot-separated labels are 1 to 63 letters, digits and inner hyphens ${found}`;
  }
  return undefined;
}
