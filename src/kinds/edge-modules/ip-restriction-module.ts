import { isRecord } from '../../json-value.js';
import { refIds } from '../api-json.js';
import type { FieldRule } from '../kind.js';
import { IP_POLICY_IDS } from '../referenced-resources/index.js';
import { normalizeSetLike } from '../set-like.js';
import type { EdgeModule } from './module-edges.js';

/**
 * The IP restriction module of a TCP edge: manifest shape
 * `{ enabled, ip_policies: [IDs] }`; the API takes `ip_policy_ids` and
 * answers with Refs. IP policies are not a managed kind: `names`, not `references`.
 */
export const IP_RESTRICTION_FIELDS: readonly FieldRule[] = [
  { name: 'enabled', onChange: 'update' },
  { name: 'ip_policies', onChange: 'update', setLike: true, names: IP_POLICY_IDS },
];

export function normalizeIpRestrictionDesired(value: unknown): unknown {
  if (!isRecord(value)) return value;
  return { enabled: value.enabled ?? true, ip_policies: normalizeSetLike(value.ip_policies ?? []) };
}

export function ipRestrictionFromApi(raw: unknown): Record<string, unknown> | null {
  if (!isRecord(raw)) return null;
  return { enabled: raw.enabled ?? true, ip_policies: normalizeSetLike(refIds(raw.ip_policies)) };
}

export function ipRestrictionMutateBody(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { enabled: value.enabled ?? true, ip_policy_ids: value.ip_policies ?? [] };
}

/** The module as a TCP edge manages it. */
export const IP_RESTRICTION_EDGE_MODULE: EdgeModule = {
  rule: { name: 'ip_restriction', scope: 'resource', fields: IP_RESTRICTION_FIELDS, namesIpPolicies: true },
  fromApi: ipRestrictionFromApi,
  normalizeDesired: normalizeIpRestrictionDesired,
  putBody: ipRestrictionMutateBody,
};
