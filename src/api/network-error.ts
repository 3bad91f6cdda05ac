import { EdgesyncError } from '../errors.js';
import { FAILURE_WORDS, FAILURES_BEFORE_SENDING, type PeerFailure } from '../peer/peer-failure.js';

/** Why a request to the service got no (complete) HTTP response: a peer's failure (src/peer/). */
export type NetworkFailure = PeerFailure;

/**
 * No (complete) HTTP response: connection refused or dropped, socket closed,
 * timeout. The message names the host, since that is what a person checks:
 * `cannot reach http://127.0.0.1:8099 (connection refused)`, `cannot reach
 * https://127.0.0.1:8443 (certificate rejected: self-signed certificate)`, or for a failure
 * after sending, `GET http://127.0.0.1:8099/ip_policy_rules: connection reset`.
 */
export class NetworkError extends EdgesyncError {
  readonly method: string;
  readonly path: string;
  /** Scheme, host and port the request went to. */
  readonly origin: string;
  readonly failure: NetworkFailure;
  /** True when the request never left this process: retrying cannot apply a write twice. */
  readonly beforeSending: boolean;

  constructor(
    init: {
      readonly method: string;
      readonly path: string;
      readonly origin: string;
      readonly failure: NetworkFailure;
      /** What the failure was, in the words of the socket (`ECONNRESET`) or of the client (`within 30000 ms`). */
      readonly detail: string;
    },
    options?: { cause?: unknown },
  ) {
    const beforeSending = FAILURES_BEFORE_SENDING.includes(init.failure);
    // Which check refused a certificate (expired, self-signed, another name) is what a person acts on.
    const words =
      init.failure === 'other'
        ? init.detail
        : init.failure === 'certificate_rejected'
          ? `${FAILURE_WORDS.certificate_rejected}: ${init.detail}`
          : FAILURE_WORDS[init.failure];
    const detail =
      init.failure === 'other' || init.detail === ''
        ? ''
        : init.failure === 'timeout'
          ? ` ${init.detail}`
          : ` (${init.detail})`;
    super(
      'network_error',
      beforeSending
        ? `cannot reach ${init.origin} (${words})`
        : `${init.method} ${init.origin}${init.path}: ${words}${detail}`,
      options,
    );
    this.method = init.method;
    this.path = init.path;
    this.origin = init.origin;
    this.failure = init.failure;
    this.beforeSending = beforeSending;
  }
}
