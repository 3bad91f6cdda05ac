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

/** The client's RequestAbortedError (read structurally): an abort, and whether a write had been sent. */
function abortOf(error: unknown): { readonly mayHaveApplied: boolean } | undefined {
  if (!(error instanceof EdgesyncError) || error.code !== 'aborted') return undefined;
  return { mayHaveApplied: (error as { mayHaveApplied?: unknown }).mayHaveApplied === true };
}

/** Aborted before any attempt that could have been applied was sent. */
export function isAbortedBeforeSending(error: unknown): boolean {
  return abortOf(error)?.mayHaveApplied === false;
}

/** Sent and not answered in a way that proves it was or was not applied: an unknown outcome, or an abort in flight. */
export function mayHaveLanded(error: unknown): boolean {
  return isOutcomeUnknown(error) || abortOf(error)?.mayHaveApplied === true;
}

/**
 * The service's 404 for something already gone, by status alone: the spec
 * defines no error codes, and a service's 404 bodies may say anything.
 */
export function isAlreadyAbsent(error: unknown): boolean {
  return describeActionFailure(error).status === 404;
}
