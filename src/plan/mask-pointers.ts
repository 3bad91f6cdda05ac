import { replaceAt, valueAt } from '../json-pointer.js';
import { SENSITIVE_MASK } from './compare-fields.js';

/** A copy of `body` with the value at every JSON Pointer replaced by the mask; pointers to nothing are skipped. */
export function maskPointers(body: unknown, pointers: readonly string[]): unknown {
  let masked = body;
  for (const pointer of pointers) {
    if (valueAt(masked, pointer) !== undefined) masked = replaceAt(masked, pointer, SENSITIVE_MASK);
  }
  return masked;
}
