import type { ApiRequest } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';

/** A changed field that its kind clears with a request of its own, not in the PATCH. */
export interface OwnClear {
  readonly field: string;
  readonly request: ApiRequest;
}

/**
 * The fields `changed` clears (undefined or null) that the kind clears by a
 * request of their own (Kind.clearRequest: a reserved address's DELETE of
 * its endpoint configuration), with those requests; the kind's PATCH leaves
 * them out.
 */
export function ownClears(kind: Kind, id: string, changed: Readonly<Record<string, unknown>>): OwnClear[] {
  if (kind.clearRequest === undefined) return [];
  const clears: OwnClear[] = [];
  for (const [field, value] of Object.entries(changed)) {
    if (value !== undefined && value !== null) continue;
    const request = kind.clearRequest(id, field);
    if (request !== undefined) clears.push({ field, request });
  }
  return clears;
}
