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

/**
 * Whether the path goes through a field whose values are secrets (or may hold
 * one): `unquoted` is unquotedFieldNames of the registry in use.
 */
export function isSensitivePath(segments: readonly string[], unquoted: ReadonlySet<string>): boolean {
  return segments.some((segment) => unquoted.has(segment));
}
