import { connect } from 'node:tls';
import { ApiError } from '../api/api-error.js';
import { connectionHint, speaksTlsHint } from '../api/connection-hint.js';
import { NetworkError } from '../api/network-error.js';
import { PaginationError } from '../api/pagination-error.js';

/** How long the check for a TLS server behind an http:// URL may take, milliseconds. */
const TLS_PROBE_MS = 2000;

/**
 * The line a person reads for an error that ended a command: the cause and
 * what to change. When the root cause is that the service could not be
 * reached, or refused the key, or is not at the URL, the wrapping layers
 * ("reading the live … failed: listing … failed: …") add nothing a person
 * can act on: the line is the root cause, said once, and what to check.
 */
export async function messageForPerson(error: unknown): Promise<string> {
  const network = findCause(error, NetworkError);
  if (network?.failure === 'plain_http') {
    return `the server at ${network.origin} speaks plain HTTP; use ${network.origin.replace(/^https:/, 'http:')} in EDGE_API_URL (--api-url)`;
  }
  if (
    network !== undefined &&
    (network.failure === 'socket_closed' || network.failure === 'connection_reset') &&
    network.origin.startsWith('http:') &&
    (await speaksTls(network.origin))
  ) {
    return speaksTlsHint(network.origin);
  }
  const hint = network === undefined ? undefined : connectionHint(network.failure, network.origin);
  if (network !== undefined && hint !== undefined) return `${network.message}: ${hint}`;
  const refused = findCause(error, ApiError);
  if (refused?.status === 401) {
    return `the service refused the API key (${refused.message}): check EDGE_API_KEY (--api-key)`;
  }
  // Every collection of the service exists: a 404 on its first page means the URL is not the API's root.
  const listing = findCause(error, PaginationError);
  if (refused?.status === 404 && listing !== undefined && listing.pagesRead === 0) {
    return `the service has no ${listing.path} (${refused.message}): check EDGE_API_URL (--api-url): it should be the API's root`;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether a TLS handshake with `origin` (an http:// URL that dropped the
 * connection) succeeds: a TLS server closes a connection that starts in
 * plain HTTP without an answer, which is all the client saw. Sends nothing
 * but a ClientHello; the certificate is not judged, since only the protocol
 * is in question. The probe's deadline is total: a peer that trickles its
 * handshake is cut off at it like any read of a peer.
 */
function speaksTls(origin: string): Promise<boolean> {
  const url = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 80),
      servername: /^[\d.]+$|:/.test(url.hostname) ? undefined : url.hostname,
      rejectUnauthorized: false,
    });
    const deadline = setTimeout(() => done(false), TLS_PROBE_MS);
    const done = (answer: boolean): void => {
      clearTimeout(deadline);
      socket.destroy();
      resolve(answer);
    };
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
  });
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
