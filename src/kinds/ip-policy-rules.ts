import type { ApiRequest } from '../api/edge-api.js';
import { expectId, expectObject, optionalString, refId } from './api-json.js';
import { checkCidr } from './check-cidr.js';
import { canonicalCidr, cidrRange } from './cidr.js';
import { normalizeDesiredFields } from './desired-common-fields.js';
import { IP_POLICY_RULES_SCHEMA } from './ip-policy-rules.schema.js';
import type { Kind } from './kind.js';
import { ID_PREFIXES } from './kind-name.js';
import { listLiveObjects } from './list-live-objects.js';
import { buildLiveObject, withoutUndefined } from './live-object.js';
import type { LiveObject } from './live-state.js';
import { patchBody } from './patch-body.js';
import { rejectModule } from './reject-module.js';

const NAME = 'ip_policy_rules';
const PATH = '/ip_policy_rules';

function fromApi(raw: unknown): LiveObject {
  const object = expectObject(raw, NAME, 'IP policy rule');
  const cidr = object.cidr;
  return buildLiveObject({
    kind: NAME,
    id: expectId(object, NAME),
    raw,
    createdAt: object.created_at,
    metadata: object.metadata,
    spec: {
      description: optionalString(object, 'description'),
      cidr: typeof cidr === 'string' ? canonicalCidr(cidr) : cidr,
      ip_policy_id: refId(object.ip_policy) ?? undefined,
      action: object.action,
    },
  });
}

function normalizeDesired(spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return normalizeDesiredFields(spec, {
    cidr: typeof spec.cidr === 'string' ? canonicalCidr(spec.cidr) : spec.cidr,
  });
}

export const ipPolicyRules: Kind = {
  name: NAME,
  title: 'IP policy rule',
  idPrefix: ID_PREFIXES.ip_policy_rule,
  ownership: 'metadata',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
    { name: 'cidr', onChange: 'update' },
    { name: 'action', onChange: 'replace' },
    { name: 'ip_policy_id', onChange: 'replace' },
  ],
  modules: [],
  schema: IP_POLICY_RULES_SCHEMA,
  // The service holds one rule per CIDR and IP policy.
  uniqueKey: ['cidr', 'ip_policy_id'],
  accessDecision: {
    field: 'action',
    allow: 'allow',
    deny: 'deny',
    // Regardless of policy: an endpoint may list several IP policies, so
    // rules of different policies can decide for the same address.
    range: (spec) => (typeof spec.cidr === 'string' ? cidrRange(spec.cidr) : undefined),
  },
  checkEntry: (value) => {
    if (typeof value.cidr !== 'string') return [];
    const cidr = checkCidr(value.cidr);
    return cidr.ok ? [] : [{ code: cidr.code, pointer: '/cidr', message: cidr.message }];
  },
  readLive: (ctx) => listLiveObjects(ctx.api, { kind: NAME, path: PATH, listKey: NAME }, fromApi, ctx.signal),
  fromApi,
  normalizeDesired,
  createRequest: (spec, metadata): ApiRequest => ({
    method: 'POST',
    path: PATH,
    body: withoutUndefined({
      description: spec.description,
      metadata,
      cidr: spec.cidr,
      ip_policy_id: spec.ip_policy_id,
      action: spec.action,
    }),
  }),
  updateRequest: (id, changed): ApiRequest => ({
    method: 'PATCH',
    path: `${PATH}/${id}`,
    body: patchBody(changed, ['description', 'metadata', 'cidr']),
  }),
  deleteRequest: (id): ApiRequest => ({ method: 'DELETE', path: `${PATH}/${id}` }),
  moduleRequest: rejectModule(NAME),
  moduleReadRequest: rejectModule(NAME),
};
