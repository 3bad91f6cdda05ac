/**
 * JSON Pointers (RFC 6901): the one codec of pointer tokens, and the reads
 * and writes by pointer, for manifests (locations of fields), plans (secrets
 * in request bodies) and saved plans.
 */

/** One JSON Pointer token: `~` and `/` escaped. */
export function pointerToken(key: string | number): string {
  const text = String(key);
  // Nearly every key has nothing to escape: two replaces each were a load's garbage at 10,000 rules.
  return text.includes('~') || text.includes('/') ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text;
}

/** The pointer of a path of keys and indexes: `['https_edges', 'web']` → `/https_edges/web`. */
export function pointerOf(tokens: readonly (string | number)[]): string {
  return tokens.map((token) => `/${pointerToken(token)}`).join('');
}

/** A pointer's tokens, unescaped: `/https_edges/web~1x` → `['https_edges', 'web/x']`. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Pointers to every string in `value` that is one of `secrets`. */
export function pointersToValues(value: unknown, secrets: ReadonlySet<string>, at = ''): string[] {
  if (secrets.size === 0) return [];
  if (typeof value === 'string') return secrets.has(value) ? [at] : [];
  if (Array.isArray(value))
    return value.flatMap((item, index) => pointersToValues(item, secrets, `${at}/${index}`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) =>
      pointersToValues(item, secrets, `${at}/${pointerToken(key)}`),
    );
  }
  return [];
}

/** The value at `pointer`, or undefined when the path does not exist. */
export function valueAt(value: unknown, pointer: string): unknown {
  let current = value;
  for (const token of pointerTokens(pointer)) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

/** A copy of `value` with the value at `pointer` replaced (the path must exist). */
export function replaceAt(value: unknown, pointer: string, replacement: unknown): unknown {
  const [head, ...rest] = pointerTokens(pointer);
  if (head === undefined) return replacement;
  const restPointer = pointerOf(rest);
  if (Array.isArray(value)) {
    return value.map((item, index) =>
      String(index) === head ? replaceAt(item, restPointer, replacement) : item,
    );
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return { ...record, [head]: replaceAt(record[head], restPointer, replacement) };
  }
  return value;
}
