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
  'invalid_id',
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
  /**
   * The family's number for this failure (`ERR_NGROK_<n>`) where a family
   * source names it (docs/emulator.md); answered in place of `errorCode`
   * when the emulator speaks the family's codes (EmulatorOptions.errorCodes).
   */
  familyCode: number | undefined;

  constructor(
    status: number,
    errorCode: ServiceErrorCode,
    message: string,
    field?: string,
    familyCode?: number,
  ) {
    super(`emulator_${errorCode}`, message);
    this.status = status;
    this.errorCode = errorCode;
    this.field = field;
    this.familyCode = familyCode;
  }
}

/**
 * The family's numbers the sources name (its error pages, its Kubernetes
 * operator): what an error answers as `ERR_NGROK_<n>` when it carries no
 * number of its own. The other codes get a number of 9000 and up: a
 * stand-in in the family's form, not a number the family uses, so that a
 * client that reads code text meets codes it has never seen.
 */
const FAMILY_CODE_BY_WORD: Readonly<Partial<Record<ServiceErrorCode, number>>> = {
  invalid_id: 227,
};

function familyCodeOf(error: ServiceError): number {
  return (
    error.familyCode ??
    FAMILY_CODE_BY_WORD[error.errorCode] ??
    9000 + SERVICE_ERROR_CODES.indexOf(error.errorCode)
  );
}

/** How error bodies name a failure: the emulator's words (`invalid_field`) or the family's form (`ERR_NGROK_7117`). */
export const ERROR_CODE_STYLES = ['words', 'family'] as const;
export type ErrorCodeStyle = (typeof ERROR_CODE_STYLES)[number];

export function invalidField(field: string, message: string): ServiceError {
  return new ServiceError(400, 'invalid_field', `${field}: ${message}`, field);
}

export function notFound(what: string): ServiceError {
  return new ServiceError(404, 'not_found', `${what} not found`);
}

/** A path or body ID that is not of the expected kind, in the family's words (its error 227). */
export function invalidId(value: string, prefix: string, field?: string): ServiceError {
  return new ServiceError(
    400,
    'invalid_id',
    `The ID ${value} is invalid. Expected an ID with a prefix of ${prefix}`,
    field,
    227,
  );
}

export interface ServiceErrorBody {
  /** A ServiceErrorCode, or the one code the emulator was told to answer every 404 with. */
  readonly error_code: string;
  readonly status_code: number;
  readonly msg: string;
  readonly details: { readonly operation_id: string; readonly field?: string };
}

/**
 * `notFoundCode`, when given, replaces the code of every 404 (the emulator's
 * generic-404 mode); `style` 'family' answers `ERR_NGROK_<n>` codes.
 */
export function serviceErrorBody(
  error: ServiceError,
  operationId: string,
  notFoundCode?: string,
  style: ErrorCodeStyle = 'words',
): ServiceErrorBody {
  const details =
    error.field === undefined
      ? { operation_id: operationId }
      : { operation_id: operationId, field: error.field };
  const word = style === 'family' ? `ERR_NGROK_${familyCodeOf(error)}` : error.errorCode;
  const code = error.status === 404 && notFoundCode !== undefined ? notFoundCode : word;
  return { error_code: code, status_code: error.status, msg: error.message, details };
}
