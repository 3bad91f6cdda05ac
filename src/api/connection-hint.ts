import type { PeerFailure } from '../peer/peer-failure.js';

/** Where the service's address comes from, as every hint names it. */
const URL_SOURCE = 'EDGE_API_URL (--api-url)';

/**
 * What a person checks when the service could not be reached, by how it
 * failed: the one wording of every command that talks to the service
 * (`plan`, `apply`, `export`, `doctor`, …), so that the same closed port
 * gets the same advice wherever it is met. `origin` is the URL's scheme,
 * host and port. Undefined where the failure itself says all there is
 * (a reset connection, a network failure of another kind).
 */
export function connectionHint(failure: PeerFailure, origin: string): string | undefined {
  switch (failure) {
    case 'connection_refused':
    case 'dns':
    case 'connect_timeout':
      return `is ${URL_SOURCE} right and the service up?`;
    case 'certificate_rejected':
      return "if a private CA or a TLS-inspecting proxy signs the service's certificate, give its PEM file in NODE_EXTRA_CA_CERTS";
    case 'plain_http':
      return `the server speaks plain HTTP; use ${origin.replace(/^https:/, 'http:')} in ${URL_SOURCE}`;
    case 'timeout':
      return `the service took the connection and did not answer; is ${URL_SOURCE} right, or does --timeout need raising?`;
    default:
      return undefined;
  }
}

/** The hint for an http:// URL whose server turned out to speak TLS. */
export function speaksTlsHint(origin: string): string {
  return `the server at ${origin} speaks HTTPS; use ${origin.replace(/^http:/, 'https:')} in ${URL_SOURCE}`;
}
