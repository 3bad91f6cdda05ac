import { ApiError } from '../api/api-error.js';

/**
 * The service's `error_code` of a 404 (`not_found`: no such edge;
 * `module_not_set`: the edge exists without that module), or undefined for
 * any other error.
 */
export function notFoundCode(error: unknown): 'not_found' | 'module_not_set' | undefined {
  if (!(error instanceof ApiError) || error.status !== 404) return undefined;
  return error.errorCode === 'module_not_set' ? 'module_not_set' : 'not_found';
}
