import { EdgesyncError } from '../errors.js';

/**
 * Why a request got no HTTP response. `connection_refused`, `dns` and
 * `connect_timeout` happen before anything is sent; the others may happen
 * after the service received the request.
 */
export const NETWORK_FAILURES = [
  'connection_refused',
  'dns',
  'connect_timeout',
  'connection_reset',
  'socket_closed',
  'timeout',
  'other',
] as const;
export type NetworkFailure = (typeof NETWORK_FAILURES)[number];

export const FAILURES_BEFORE_SENDING: readonly NetworkFailure[] = [
  'connection_refused',
  'dns',
  'connect_timeout',
];

/** No (complete) HTTP response: connection refused or dropped, socket closed, timeout. */
export class NetworkError extends EdgesyncError {
  readonly method: string;
  readonly path: string;
  readonly failure: NetworkFailure;
  /** True when the request never left this process: retrying cannot apply a write twice. */
  readonly beforeSending: boolean;

  constructor(
    init: {
      readonly method: string;
      readonly path: string;
      readonly failure: NetworkFailure;
      readonly detail: string;
    },
    options?: { cause?: unknown },
  ) {
    super(
      'network_error',
      `${init.method} ${init.path}: ${init.failure.replaceAll('_', ' ')} (${init.detail})`,
      options,
    );
    this.method = init.method;
    this.path = init.path;
    this.failure = init.failure;
    this.beforeSending = FAILURES_BEFORE_SENDING.includes(init.failure);
  }
}
