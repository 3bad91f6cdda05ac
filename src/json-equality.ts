/**
 * Whether two JSON values print the same canonical JSON (canonical-json.ts:
 * object keys sorted), found without printing either: objects whatever the
 * order of their keys, an undefined property as an absent one, an undefined
 * list item and a number that is not finite as null, a `__proto__` key left
 * out, and undefined itself as null.
 */
export function sameCanonicalJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const scalarA = asScalar(a);
  const scalarB = asScalar(b);
  if (scalarA !== NOT_SCALAR || scalarB !== NOT_SCALAR) return scalarA === scalarB;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let at = 0; at < a.length; at += 1)
      if (!sameCanonicalJson(listItem(a[at]), listItem(b[at]))) return false;
    return true;
  }
  const left = a as Readonly<Record<string, unknown>>;
  const right = b as Readonly<Record<string, unknown>>;
  let unmatched = 0;
  for (const key of Object.keys(left)) {
    const value = left[key];
    if (!printsProperty(key, value)) continue;
    unmatched += 1;
    if (
      !Object.hasOwn(right, key) ||
      !printsProperty(key, right[key]) ||
      !sameCanonicalJson(value, right[key])
    )
      return false;
  }
  for (const key of Object.keys(right)) if (printsProperty(key, right[key])) unmatched -= 1;
  return unmatched === 0;
}

/** A scalar as it is compared (null for what JSON prints as null); NOT_SCALAR for an object or a list. */
function asScalar(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'object') return NOT_SCALAR;
  return value;
}

const NOT_SCALAR = Symbol('not a scalar');

/** A list item as JSON prints it: what it cannot print (undefined, a function) is null. */
function listItem(value: unknown): unknown {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol' ? null : value;
}

/** Whether canonical JSON prints an object property: it leaves out `__proto__` and what JSON cannot print. */
function printsProperty(key: string, value: unknown): boolean {
  return (
    key !== '__proto__' && value !== undefined && typeof value !== 'function' && typeof value !== 'symbol'
  );
}
