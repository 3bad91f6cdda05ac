import { EdgesyncError } from '../errors.js';

/**
 * The service answered with a body over the bound (MAX_RESPONSE_BYTES), as
 * sent or once decompressed. Not retried: the next answer is as large, and
 * each try would read as much again.
 */
export class ResponseTooLargeError extends EdgesyncError {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The bound, in bytes. */
  readonly limitBytes: number;
  /** True when the body passed the bound only once its content coding (gzip, …) was undone. */
  readonly decoded: boolean;

  constructor(init: {
    readonly method: string;
    readonly path: string;
    readonly status: number;
    readonly limitBytes: number;
    readonly decoded: boolean;
  }) {
    const size = `${init.limitBytes / (1024 * 1024)} MiB`;
    super(
      'response_too_large',
      `${init.method} ${init.path}: ${init.status} with a body over ${size}${init.decoded ? ' once decompressed' : ''}; not read further, nor asked again`,
    );
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.limitBytes = init.limitBytes;
    this.decoded = init.decoded;
  }
}
