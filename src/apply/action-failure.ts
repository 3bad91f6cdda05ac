import { EdgesyncError } from '../errors.js';
import type { ActionFailure } from './apply-result.js';

function stringField(source: object, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = (source as Record<string, unknown>)[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * What an ApplyResult says about an error: the edgesync code and message
 * and, for the service's answers (ApiError), its status, error code and
 * field. Read structurally so the executor depends on the EdgeApi contract
 * only, not on the client's classes.
 */
export function describeActionFailure(error: unknown): ActionFailure {
  if (!(error instanceof Error)) return { code: 'unexpected_error', message: String(error) };
  const code = error instanceof EdgesyncError ? error.code : 'unexpected_error';
  const status = (error as { status?: unknown }).status;
  const serviceCode = stringField(error, 'errorCode', 'error_code', 'serviceCode');
  const details = (error as { details?: unknown }).details;
  const field = typeof details === 'object' && details !== null ? stringField(details, 'field') : undefined;
  const serviceMessage = stringField(error, 'msg', 'serviceMessage');
  return {
    code,
    message: serviceMessage ?? error.message,
    ...(typeof status === 'number' ? { status } : {}),
    ...(serviceCode === undefined ? {} : { serviceCode }),
    ...(field === undefined ? {} : { field }),
  };
}

export function isOutcomeUnknown(error: unknown): boolean {
  return error instanceof EdgesyncError && error.code === 'outcome_unknown';
}

/** The service's 404 for something already gone: `not_found`, or `module_not_set` for a module. */
export function isAlreadyAbsent(error: unknown): boolean {
  const failure = describeActionFailure(error);
  return (
    failure.status === 404 &&
    (failure.serviceCode === 'not_found' || failure.serviceCode === 'module_not_set')
  );
}
