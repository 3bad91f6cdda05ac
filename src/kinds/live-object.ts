import { canonicalHash } from '../canonical-json.js';
import { inlineRecord } from '../inline-record.js';
import type { KindName } from './kind-name.js';
import type { LiveObject } from './live-state.js';
import { normalizeUserMetadata, parseMetadata } from './ownership-marker.js';
import { repeatedTimestamp } from './repeated-strings.js';

export interface LiveObjectParts {
  readonly kind: KindName;
  readonly id: string;
  /** The object exactly as the API returned it (or as assembled from module reads): the fingerprint's input. */
  readonly raw: unknown;
  /** Normalized manifest-shaped fields, without `metadata` (added from `metadata` below). */
  readonly spec: Readonly<Record<string, unknown>>;
  readonly outputs?: Readonly<Record<string, unknown>>;
  readonly createdAt?: unknown;
  /** The raw `metadata` string, for kinds that have one; undefined for module-only kinds. */
  readonly metadata?: unknown;
}

/** Assembles a LiveObject: marker and user metadata parsed, absent fields dropped, fingerprint of the raw object. */
export function buildLiveObject(parts: LiveObjectParts): LiveObject {
  const raw = typeof parts.metadata === 'string' ? parts.metadata : undefined;
  const { marker, user } = parseMetadata(raw);
  return {
    kind: parts.kind,
    id: parts.id,
    ...(typeof parts.createdAt === 'string' ? { createdAt: repeatedTimestamp(parts.createdAt) } : {}),
    marker,
    spec: withMetadata(parts.spec, normalizeUserMetadata(user)),
    outputs: parts.outputs === undefined ? NO_OUTPUTS : withoutUndefined(parts.outputs),
    fingerprint: canonicalHash(parts.raw),
  };
}

/** One empty object for every object without outputs (a rule): never written to. */
const NO_OUTPUTS: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * `withoutUndefined({ ...record, metadata })`: the record's keys in order,
 * `metadata` in its place (last when the record has none), absent values
 * dropped, without the spread copy, and with every property inside the
 * object (inlineRecord). It runs once per object read and per create, so
 * 100,000 of them are held while planning (docs/performance.md).
 */
export function withMetadata(
  record: Readonly<Record<string, unknown>>,
  metadata: unknown,
): Record<string, unknown> {
  const keys: string[] = [];
  const values: unknown[] = [];
  for (const key of Object.keys(record)) {
    const value = key === 'metadata' ? metadata : record[key];
    if (value !== undefined) {
      keys.push(key);
      values.push(value);
    }
  }
  if (!Object.hasOwn(record, 'metadata') && metadata !== undefined) {
    keys.push('metadata');
    values.push(metadata);
  }
  return inlineRecord(keys, values);
}

/** Drops keys whose value is undefined, so "absent" has one representation. */
export function withoutUndefined(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  // Keys, not entries: a [key, value] pair per field was garbage, once per live object and per entry.
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value !== undefined) result[key] = value;
  }
  return result;
}

/**
 * Newest first by `created_at`, then by ID: the one order of several objects
 * (a marker's copies, duplicates), so the planner and the exporter agree.
 */
export function newestFirst(a: LiveObject, b: LiveObject): number {
  const byTime = (b.createdAt ?? '').localeCompare(a.createdAt ?? '');
  return byTime !== 0 ? byTime : a.id.localeCompare(b.id);
}
