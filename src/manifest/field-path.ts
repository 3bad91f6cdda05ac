import { KINDS } from '../kinds/registry.js';
import { unquotedFieldNames } from '../kinds/visit-spec.js';

/**
 * The dotted path people read (`https_edges.web.routes[0].oidc.issuer`),
 * following the data so that an index is told apart from a name made of
 * digits.
 */
export function dottedPath(data: unknown, segments: readonly string[]): string {
  let path = '';
  let current: unknown = data;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      path += `[${segment}]`;
      current = current[Number(segment)];
    } else {
      path += path === '' ? segment : `.${segment}`;
      current =
        current !== null && typeof current === 'object'
          ? (current as Record<string, unknown>)[segment]
          : undefined;
    }
  }
  return path;
}

/** Fields whose values are secrets (or may hold one), from the kinds' field rules: never quoted in a message. */
export const SENSITIVE_FIELDS: ReadonlySet<string> = unquotedFieldNames(KINDS);

export function isSensitivePath(segments: readonly string[]): boolean {
  return segments.some((segment) => SENSITIVE_FIELDS.has(segment));
}
