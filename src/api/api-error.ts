import { EdgesyncError } from '../errors.js';

/** `details` of the service's error body; `operation_id` identifies the request in the service's logs. */
export interface ApiErrorDetails {
  readonly operation_id?: string;
  readonly field?: string;
  readonly [key: string]: unknown;
}

export interface ApiErrorInit {
  readonly method: string;
  /** Path relative to the base URL, with its query. */
  readonly path: string;
  readonly status: number;
  /** The service's stable `error_code` (`invalid_field`, `not_found`, …); undefined when the body had none. */
  readonly errorCode?: string;
  /** The service's `msg`, or the start of a non-JSON body. */
  readonly msg: string;
  readonly details?: ApiErrorDetails;
}

/**
 * A response the service answered with a non-2xx status, after retries.
 * `code` is always `api_error`; branch on `status` and `errorCode`. Holds no
 * request headers, so never the API key.
 */
export class ApiError extends EdgesyncError {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly errorCode: string | undefined;
  readonly msg: string;
  readonly details: ApiErrorDetails;
  readonly operationId: string | undefined;

  constructor(init: ApiErrorInit, options?: { cause?: unknown }) {
    super('api_error', formatApiErrorMessage(init), options);
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.msg = init.msg;
    this.details = init.details ?? {};
    this.operationId = typeof this.details.operation_id === 'string' ? this.details.operation_id : undefined;
  }
}

/** `POST /ip_policy_rules: 400 invalid_field (cidr): <msg> [op_…]` */
function formatApiErrorMessage(init: ApiErrorInit): string {
  const field = typeof init.details?.field === 'string' ? ` (${init.details.field})` : '';
  const code = init.errorCode ? ` ${init.errorCode}${field}` : field;
  const operation = typeof init.details?.operation_id === 'string' ? ` [${init.details.operation_id}]` : '';
  const msg = init.msg ? `: ${init.msg}` : '';
  return `${init.method} ${init.path}: ${init.status}${code}${msg}${operation}`;
}
