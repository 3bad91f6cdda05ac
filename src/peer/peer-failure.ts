/**
 * Why an exchange with a peer got no (complete) HTTP response.
 * `connection_refused`, `dns`, `connect_timeout`, `certificate_rejected`
 * (the TLS handshake refused the peer's certificate) and `plain_http` (an
 * https URL whose server answered the TLS handshake in plain HTTP) happen
 * before anything is sent; the others may happen after the peer received
 * the request.
 */
export const PEER_FAILURES = [
  'connection_refused',
  'dns',
  'connect_timeout',
  'certificate_rejected',
  'plain_http',
  'connection_reset',
  'socket_closed',
  'timeout',
  'other',
] as const;
export type PeerFailure = (typeof PEER_FAILURES)[number];

/** The failures that leave the request unsent: retrying cannot apply a write twice. */
export const FAILURES_BEFORE_SENDING: readonly PeerFailure[] = [
  'connection_refused',
  'dns',
  'connect_timeout',
  'certificate_rejected',
  'plain_http',
];

/** What each failure is called in a message. */
export const FAILURE_WORDS: Readonly<Record<PeerFailure, string>> = {
  connection_refused: 'connection refused',
  dns: 'host not found',
  connect_timeout: 'connection timed out',
  certificate_rejected: 'certificate rejected',
  plain_http: 'the server speaks plain HTTP, not TLS',
  connection_reset: 'connection reset',
  socket_closed: 'connection closed before the answer was complete',
  timeout: 'no complete answer',
  other: 'network failure',
};

const FAILURE_BY_CODE: Readonly<Record<string, PeerFailure>> = {
  ECONNREFUSED: 'connection_refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ETIMEDOUT: 'timeout',
};

/**
 * The codes Node gives a TLS handshake that refused the peer's
 * certificate (OpenSSL's verify results, and the name check's own): the
 * request was never sent, and no retry changes the answer.
 */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REJECTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
  'INVALID_CA',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/**
 * OpenSSL's reason when the bytes that came back to a ClientHello are not
 * TLS: on Node 20 `EPROTO` with the reason in the message, later
 * `ERR_SSL_WRONG_VERSION_NUMBER`. An HTTP server answering a TLS handshake
 * says `HTTP/1.1 400`, which OpenSSL reads as a record of an unknown version.
 */
const NOT_TLS = /wrong version number/i;

/**
 * What node:http says when the peer closed the connection: `socket hang
 * up` before the answer began, `aborted` during its body. Both carry the
 * code ECONNRESET, which a reset (`read ECONNRESET`) has too.
 */
const CLOSED_MESSAGES: ReadonlySet<string> = new Set(['socket hang up', 'aborted']);

/**
 * Names the failure behind an error of a node:http request: the
 * socket error's `code`, on the error itself, down its `cause` chain, or
 * inside an AggregateError when several addresses were tried.
 */
export function classifyPeerFailure(error: unknown): { failure: PeerFailure; detail: string } {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  const messages: string[] = [];
  while (queue.length > 0) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const { code, message, cause, errors } = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof message === 'string' && CLOSED_MESSAGES.has(message)) {
      return { failure: 'socket_closed', detail: message };
    }
    if (typeof code === 'string' && CERTIFICATE_CODES.has(code)) {
      return { failure: 'certificate_rejected', detail: typeof message === 'string' ? message : code };
    }
    if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || (typeof message === 'string' && NOT_TLS.test(message))) {
      return { failure: 'plain_http', detail: '' };
    }
    if (typeof message === 'string' && message !== '') messages.push(message);
    const failure = typeof code === 'string' ? FAILURE_BY_CODE[code] : undefined;
    if (failure) return { failure, detail: typeof code === 'string' ? code : failure };
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return { failure: 'other', detail: messages.join(': ') || 'unknown network failure' };
}
