import { isRecord } from '../json-value.js';
import { KindError } from './kind-error.js';
import type { KindName } from './kind-name.js';
import { sharedCopy } from './repeated-strings.js';

export function expectObject(raw: unknown, kind: KindName, what: string): Record<string, unknown> {
  if (isRecord(raw)) return raw;
  throw new KindError('unexpected_response', `${what}: expected a JSON object, found ${describe(raw)}`, {
    kind,
  });
}

export function expectId(raw: Record<string, unknown>, kind: KindName): string {
  const id = raw.id;
  if (typeof id === 'string' && id !== '') return id;
  throw new KindError(
    'unexpected_response',
    `${kind} object: expected a string "id", found ${describe(id)}`,
    { kind },
  );
}

/**
 * The ID of a Ref (`{ id, uri }`); null when the Ref is null or absent. One
 * copy per ID: many objects name the same one (every rule its policy).
 */
export function refId(ref: unknown): string | null {
  if (typeof ref === 'object' && ref !== null && typeof (ref as { id?: unknown }).id === 'string') {
    return sharedCopy((ref as { id: string }).id);
  }
  return null;
}

/** The IDs of a list of Refs, in the order given. */
export function refIds(refs: unknown): string[] {
  if (!Array.isArray(refs)) return [];
  return refs.map(refId).filter((id): id is string => id !== null);
}

/** A string field, or undefined when absent, null or empty (the spec lets unset optional fields be absent). */
export function optionalString(raw: Record<string, unknown>, key: string): string | undefined {
  const value = raw[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
