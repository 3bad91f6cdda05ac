import { canonicalJson } from '../canonical-json.js';
import { isRecord } from '../json-value.js';
import type { OwnershipMarker } from './live-state.js';
import { sharedCopy } from './repeated-strings.js';

/** The reserved metadata key that holds the marker. */
export const MARKER_KEY = 'edgesync';

export interface ParsedMetadata {
  /** Null unless the metadata is a JSON object whose `edgesync` has string `owner` and `name`. */
  readonly marker: OwnershipMarker | null;
  /**
   * The user's part: the mapping without a valid marker, the raw string when
   * the metadata is not a JSON object, undefined when nothing is left.
   */
  readonly user: Record<string, unknown> | string | undefined;
}

/** Metadata as edgesync writes it: the user's mapping plus the marker, compact JSON with keys sorted recursively. */
export function encodeMetadata(user: Record<string, unknown> | undefined, marker: OwnershipMarker): string {
  const written = { name: marker.name, owner: marker.owner, ...(marker.protect ? { protect: true } : {}) };
  return canonicalJson({ ...user, [MARKER_KEY]: written });
}

export function parseMetadata(raw: string | undefined | null): ParsedMetadata {
  if (raw === undefined || raw === null || raw === '') return { marker: null, user: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { marker: null, user: raw };
  }
  if (!isRecord(parsed)) return { marker: null, user: raw };
  const marker = markerOf(parsed[MARKER_KEY]);
  if (marker === null) return { marker: null, user: nonEmpty(parsed) };
  const { [MARKER_KEY]: _marker, ...user } = parsed;
  return { marker, user: nonEmpty(user) };
}

/** The user's metadata in the form live and desired specs compare in: keys sorted, absent when empty. */
export function normalizeUserMetadata(value: unknown): unknown {
  if (isRecord(value)) return nonEmpty(JSON.parse(canonicalJson(value)) as Record<string, unknown>);
  if (value === '' || value === null) return undefined;
  return value;
}

function markerOf(value: unknown): OwnershipMarker | null {
  if (!isRecord(value)) return null;
  const { owner, name, protect } = value;
  if (typeof owner !== 'string' || typeof name !== 'string') return null;
  // Markers written before `protect` was recorded have no such key and read as unprotected.
  // One copy of the owner: every marker of an account names the same few.
  const shared = sharedCopy(owner);
  return protect === true ? { owner: shared, name, protect } : { owner: shared, name };
}

function nonEmpty(mapping: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(mapping).length === 0 ? undefined : mapping;
}
