import type { ApiRequest } from '../api/edge-api.js';
import { expectId, expectObject, optionalString } from './api-json.js';
import { CERTIFICATE_AUTHORITIES_SCHEMA } from './certificate-authorities.schema.js';
import { normalizeDesiredFields } from './desired-common-fields.js';
import type { Kind } from './kind.js';
import { ID_PREFIXES } from './kind-name.js';
import { listLiveObjects } from './list-live-objects.js';
import { buildLiveObject, withoutUndefined } from './live-object.js';
import type { LiveObject } from './live-state.js';
import { patchBody } from './patch-body.js';
import { canonicalPem } from './pem.js';
import { rejectModule } from './reject-module.js';

const NAME = 'certificate_authorities';
const PATH = '/certificate_authorities';

function fromApi(raw: unknown): LiveObject {
  const object = expectObject(raw, NAME, 'certificate authority');
  const pem = object.ca_pem;
  return buildLiveObject({
    kind: NAME,
    id: expectId(object, NAME),
    raw,
    createdAt: object.created_at,
    metadata: object.metadata,
    spec: {
      description: optionalString(object, 'description'),
      ca_pem: typeof pem === 'string' ? canonicalPem(pem) : pem,
    },
    outputs: {
      subject_common_name: object.subject_common_name,
      not_before: object.not_before,
      not_after: object.not_after,
      key_usages: object.key_usages,
      extended_key_usages: object.extended_key_usages,
    },
  });
}

function normalizeDesired(spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return normalizeDesiredFields(spec, {
    ca_pem: typeof spec.ca_pem === 'string' ? canonicalPem(spec.ca_pem) : spec.ca_pem,
  });
}

export const certificateAuthorities: Kind = {
  name: NAME,
  title: 'certificate authority',
  idPrefix: ID_PREFIXES.certificate_authority,
  ownership: 'metadata',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
    { name: 'ca_pem', onChange: 'replace' },
  ],
  modules: [],
  schema: CERTIFICATE_AUTHORITIES_SCHEMA,
  readLive: (ctx) => listLiveObjects(ctx.api, { kind: NAME, path: PATH, listKey: NAME }, fromApi, ctx.signal),
  fromApi,
  normalizeDesired,
  createRequest: (spec, metadata): ApiRequest => ({
    method: 'POST',
    path: PATH,
    body: withoutUndefined({ description: spec.description, metadata, ca_pem: spec.ca_pem }),
  }),
  updateRequest: (id, changed): ApiRequest => ({
    method: 'PATCH',
    path: `${PATH}/${id}`,
    body: patchBody(changed, ['description', 'metadata']),
  }),
  deleteRequest: (id): ApiRequest => ({ method: 'DELETE', path: `${PATH}/${id}` }),
  moduleRequest: rejectModule(NAME),
  moduleReadRequest: rejectModule(NAME),
};
