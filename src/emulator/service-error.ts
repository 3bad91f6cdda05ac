import { EdgesyncError } from '../errors.js';

/** The stable `error_code` values the emulator answers with (docs/emulator.md has the table). */
export const SERVICE_ERROR_CODES = [
  'unauthorized',
  'missing_service_version',
  'unsupported_service_version',
  'invalid_json',
  'invalid_body',
  'invalid_content_type',
  'invalid_query',
  'invalid_field',
  'unknown_field',
  'reference_not_found',
  'conflict',
  'not_found',
  'module_not_set',
  'method_not_allowed',
  'payload_too_large',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const;

export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];

/**
 * A failure the emulator answers with an error body. Handlers throw it; the
 * server turns it into `{ error_code, status_code, msg, details }`. Handlers
 * run synchronously, so throwing before any mutation leaves the store intact.
 */
export class ServiceError extends EdgesyncError<`emulator_${ServiceErrorCode}`> {
  readonly status: number;
  readonly errorCode: ServiceErrorCode;
  /** Dotted path of the offending request field, when one field is at fault. */
  readonly field: string | undefined;
  /** Extra response headers the answer carries (`Retry-After`, `Allow`). */
  headers: Readonly<Record<string, string>> = {};

  constructor(status: number, errorCode: ServiceErrorCode, message: string, field?: string) {
    super(`emulator_${errorCode}`, message);
    this.status = status;
    this.errorCode = errorCode;
    this.field = field;
  }
}

export function invalidField(field: string, message: string): ServiceError {
  return new ServiceError(400, 'invalid_field', `${field}: ${message}`, field);
}

export function notFound(what: string): ServiceError {
  return new ServiceError(404, 'not_found', `${what} not found`);
}

export interface ServiceErrorBody {
  /** A ServiceErrorCode, or the one code the emulator was told to answer every 404 with. */
  readonly error_code: string;
  readonly status_code: number;
  readonly msg: string;
  readonly details: { readonly operation_id: string; readonly field?: string };
}

/** `notFoundCode`, when given, replaces the code of every 404 (the emulator's generic-404 mode). */
export function serviceErrorBody(
  error: ServiceError,
  operationId: string,
  notFoundCode?: string,
): ServiceErrorBody {
  const details =
    error.field === undefined
      ? { operation_id: operationId }
      : { operation_id: operationId, field: error.field };
  const code = error.status === 404 && notFoundCode !== undefined ? notFoundCode : error.errorCode;
  return { error_code: code, status_code: error.status, msg: error.message, details };
}
