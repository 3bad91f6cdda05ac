import { ApiError } from '../api/api-error.js';
import { NetworkError } from '../api/network-error.js';

/**
 * The line a person reads for an error that ended a command. When the root
 * cause is that the service could not be reached, or refused the key, the
 * wrapping layers ("reading the live … failed: listing … failed: …") add
 * nothing a person can act on: the line is the root cause, said once, and
 * what to check.
 */
export function messageForPerson(error: unknown): string {
  const network = findCause(error, NetworkError);
  if (network?.failure === 'certificate_rejected') {
    return `${network.message}: if a private CA or a TLS-inspecting proxy signs the service's certificate, give its PEM file in NODE_EXTRA_CA_CERTS`;
  }
  if (network?.beforeSending) {
    return `${network.message}: is EDGE_API_URL (--api-url) right and the service up?`;
  }
  if (network?.failure === 'timeout') {
    return `${network.message}: the service took the connection and did not answer; is EDGE_API_URL (--api-url) right, or does --timeout need raising?`;
  }
  const refused = findCause(error, ApiError);
  if (refused?.status === 401) {
    return `the service refused the API key (${refused.message}): check EDGE_API_KEY (--api-key)`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The first error of the class in the `cause` chain, the error itself included. */
function findCause<T extends Error>(
  error: unknown,
  type: abstract new (...args: never[]) => T,
): T | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    if (current instanceof type) return current;
  }
  return undefined;
}
