import type { ApiRequest, EdgeApi } from '../api/edge-api.js';

/**
 * After a module write whose outcome is unknown: reads the module back and
 * says whether it already holds what was sent, so the write is repeated only
 * when it did not land.
 */
export async function moduleWriteLanded(
  api: EdgeApi,
  readRequest: ApiRequest,
  sent: unknown,
  options: { readonly signal?: AbortSignal; readonly kind?: string } = {},
): Promise<boolean> {
  const response = await api.request(readRequest, options);
  return holdsWhatWasSent(sent, response.body);
}

/**
 * Whether a read-back holds every value of a write body. Write and read
 * shapes differ where the API takes IDs and returns Refs
 * (`certificate_authority_ids` → `certificate_authorities: [{ id, uri }]`);
 * lists of IDs compare as sets. A false "no" only costs one more idempotent
 * write, so anything unrecognized counts as different.
 */
export function holdsWhatWasSent(sent: unknown, read: unknown): boolean {
  if (Array.isArray(sent)) {
    if (!Array.isArray(read) || sent.length !== read.length) return false;
    return sent.every((item, index) => holdsWhatWasSent(item, read[index]));
  }
  if (typeof sent === 'object' && sent !== null) {
    if (typeof read !== 'object' || read === null || Array.isArray(read)) return false;
    const readFields = read as Record<string, unknown>;
    return Object.entries(sent).every(([key, value]) => fieldHolds(key, value, readFields));
  }
  return Object.is(sent, read);
}

function fieldHolds(key: string, value: unknown, read: Readonly<Record<string, unknown>>): boolean {
  if (key in read) return holdsWhatWasSent(value, read[key]);
  if (value === null && read[key] === undefined) return true;
  if (key.endsWith('_ids') && Array.isArray(value)) {
    const singular = key.slice(0, -'_ids'.length);
    const plural = singular.endsWith('y') ? `${singular.slice(0, -1)}ies` : `${singular}s`;
    return sameIdSet(value, read[plural]);
  }
  if (key.endsWith('_id') && typeof value === 'string') {
    const ref = read[key.slice(0, -'_id'.length)];
    return typeof ref === 'object' && ref !== null && (ref as { id?: unknown }).id === value;
  }
  return false;
}

function sameIdSet(ids: readonly unknown[], refs: unknown): boolean {
  if (!Array.isArray(refs)) return false;
  const readIds = refs.map((ref: unknown) =>
    typeof ref === 'object' && ref !== null ? (ref as { id?: unknown }).id : undefined,
  );
  const wanted = new Set(ids);
  return wanted.size === new Set(readIds).size && readIds.every((id) => wanted.has(id));
}
