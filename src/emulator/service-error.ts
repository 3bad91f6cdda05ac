import { EdgesyncError } from '../errors.js';
import type { EmulatorVariantName, EmulatorVariants } from './emulator-variants.js';

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
 * The family's number for one condition (`ERR_NGROK_<n>`): one number, or,
 * where the family's catalogue has two pages for the condition and does not
 * say which is current, one per value of the variant that picks it.
 */
export type FamilyNumber =
  | number
  | { readonly variant: EmulatorVariantName; readonly byValue: Readonly<Record<string, number>> };

/** The number a condition is answered with under `variants`. */
export function familyNumberUnder(number: FamilyNumber, variants: EmulatorVariants): number {
  if (typeof number === 'number') return number;
  const chosen = number.byValue[variants[number.variant]];
  if (chosen === undefined)
    throw new Error(`no family number for ${number.variant}=${variants[number.variant]}`);
  return chosen;
}

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
   * The family's number for this failure, from the rule that refused it
   * (FamilyRule, docs/family-errors.md); undefined for a condition the
   * family documents no number for, whose family-style body then carries
   * no `error_code`.
   */
  readonly family: FamilyNumber | undefined;

  constructor(
    status: number,
    errorCode: ServiceErrorCode,
    message: string,
    field?: string,
    family?: FamilyNumber,
  ) {
    super(`emulator_${errorCode}`, message);
    this.status = status;
    this.errorCode = errorCode;
    this.field = field;
    this.family = family;
  }
}

/** How error bodies name a failure: the emulator's words (`invalid_field`) or the family's form (`ERR_NGROK_7117`). */
export const ERROR_CODE_STYLES = ['words', 'family'] as const;
export type ErrorCodeStyle = (typeof ERROR_CODE_STYLES)[number];

/** A 404 of a condition the family numbers nowhere (a missing CA, an unknown path). */
export function notFound(what: string): ServiceError {
  return new ServiceError(404, 'not_found', `${what} not found`);
}

export interface ServiceErrorBody {
  /**
   * A ServiceErrorCode, `ERR_NGROK_<n>`, or the one code the emulator was
   * told to answer every 404 with; absent where the family documents no
   * number (family style) and from every 404 under `not-found-body=bare`.
   */
  readonly error_code?: string;
  readonly status_code: number;
  readonly msg: string;
  readonly details: { readonly operation_id: string; readonly field?: string };
}

/** How an error body is written: EmulatorOptions.notFoundCode and errorCodes, and the variants. */
export interface ErrorBodyStyle {
  readonly notFoundCode: string | undefined;
  readonly style: ErrorCodeStyle;
  readonly variants: EmulatorVariants;
}

function errorCodeOf(error: ServiceError, how: ErrorBodyStyle): string | undefined {
  if (error.status === 404) {
    if (how.notFoundCode !== undefined) return how.notFoundCode;
    if (how.variants['not-found-body'] === 'bare') return undefined;
  }
  if (how.style === 'words') return error.errorCode;
  return error.family === undefined
    ? undefined
    : `ERR_NGROK_${familyNumberUnder(error.family, how.variants)}`;
}

export function serviceErrorBody(
  error: ServiceError,
  operationId: string,
  how: ErrorBodyStyle,
): ServiceErrorBody {
  const details =
    error.field === undefined
      ? { operation_id: operationId }
      : { operation_id: operationId, field: error.field };
  const code = errorCodeOf(error, how);
  return {
    ...(code === undefined ? {} : { error_code: code }),
    status_code: error.status,
    msg: error.message,
    details,
  };
}
