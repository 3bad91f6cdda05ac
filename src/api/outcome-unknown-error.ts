import { EdgesyncError } from '../errors.js';

/**
 * A POST was sent and no answer proves whether the service applied it: a
 * timeout or dropped connection after sending, or a 5xx (even a 503 the
 * service sent before applying looks the same from here). Sending it again
 * could create a duplicate, so the client does not; the caller looks the
 * object up (by its ownership marker) and decides. `cause` is the last failure.
 */
export class OutcomeUnknownError extends EdgesyncError {
  readonly method: string;
  readonly path: string;

  constructor(init: { readonly method: string; readonly path: string }, options: { cause: unknown }) {
    const reason = options.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      'outcome_unknown',
      `${init.method} ${init.path}: outcome unknown, the service may have applied it${reason}`,
      options,
    );
    this.method = init.method;
    this.path = init.path;
  }
}
