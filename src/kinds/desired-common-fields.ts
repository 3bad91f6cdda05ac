import { withoutUndefined } from './live-object.js';
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
  return withoutUndefined({
    ...spec,
    description: spec.description === '' ? undefined : spec.description,
    metadata: normalizeUserMetadata(spec.metadata),
    ...own,
  });
}
