import { ApiError } from '../api/api-error.js';

/**
 * True for the service's 404, whatever its body says. The spec defines no
 * error codes, so edgesync decides by status alone: a service whose 404
 * bodies differ from the emulator's must read the same.
 */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}
