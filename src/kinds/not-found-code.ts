/**
 * The service's `error_code` of a 404 (`not_found`: no such edge;
 * `module_not_set`: the edge exists without that module), or undefined for
 * any other error. Read structurally so that kinds depend on the EdgeApi
 * contract only, not on the client's error class.
 */
export function notFoundCode(error: unknown): 'not_found' | 'module_not_set' | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, errorCode, error_code: snakeCode } = error as Record<string, unknown>;
  if (status !== 404) return undefined;
  const code = errorCode ?? snakeCode;
  if (code === 'module_not_set') return 'module_not_set';
  return 'not_found';
}
