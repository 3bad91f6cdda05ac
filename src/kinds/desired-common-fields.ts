import { normalizeUserMetadata } from './ownership-marker.js';

/**
 * A desired spec of a metadata-owned kind in the form `buildLiveObject` gives
 * the live one: the shared fields made comparable (an empty description is
 * absent, as `optionalString` reads it; metadata is the user's sorted
 * mapping), then the kind's own normalized fields `own`, absent keys dropped.
 */
export function normalizeDesiredFields(
  spec: Readonly<Record<string, unknown>>,
  own: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  // The object `withoutUndefined({ ...spec, description, metadata, ...own })` gives, keys in the same
  // order, built in one pass: the spread copy and its entry pairs were most of the garbage of
  // normalizing 100,000 entries (docs/performance.md).
  const description = spec.description === '' ? undefined : spec.description;
  const metadata = normalizeUserMetadata(spec.metadata);
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(spec)) put(result, key, spec, own, description, metadata);
  if (!Object.hasOwn(spec, 'description')) put(result, 'description', spec, own, description, metadata);
  if (!Object.hasOwn(spec, 'metadata')) put(result, 'metadata', spec, own, description, metadata);
  for (const key of Object.keys(own)) {
    if (!Object.hasOwn(spec, key) && key !== 'description' && key !== 'metadata')
      put(result, key, spec, own, description, metadata);
  }
  return result;
}

/** Sets `key` as the spread would have, unless its value is undefined. */
function put(
  result: Record<string, unknown>,
  key: string,
  spec: Readonly<Record<string, unknown>>,
  own: Readonly<Record<string, unknown>>,
  description: unknown,
  metadata: unknown,
): void {
  const value = Object.hasOwn(own, key)
    ? own[key]
    : key === 'metadata'
      ? metadata
      : key === 'description'
        ? description
        : spec[key];
  if (value !== undefined) result[key] = value;
}
