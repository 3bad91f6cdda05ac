/**
 * The PATCH body of the fields the API can update, from the planner's
 * `changed` (manifest-shaped keys). A changed key whose new value is absent
 * (undefined or null) clears the field: it is sent as `clearedAs[key]`,
 * which defaults to "" (the string fields description and metadata).
 */
export function patchBody(
  changed: Readonly<Record<string, unknown>>,
  updatable: readonly string[],
  clearedAs: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of updatable) {
    if (!(key in changed)) continue;
    const value = changed[key];
    body[key] = value === undefined || value === null ? (key in clearedAs ? clearedAs[key] : '') : value;
  }
  return body;
}
