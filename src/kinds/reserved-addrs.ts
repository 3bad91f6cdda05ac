import type { ApiRequest } from '../api/edge-api.js';
import { expectId, expectObject, optionalString, refId } from './api-json.js';
import { normalizeDesiredFields } from './desired-common-fields.js';
import type { Kind } from './kind.js';
import { ID_PREFIXES } from './kind-name.js';
import { listLiveObjects } from './list-live-objects.js';
import { buildLiveObject, withoutUndefined } from './live-object.js';
import type { LiveObject } from './live-state.js';
import { patchBody } from './patch-body.js';
import { rejectModule } from './reject-module.js';
import { RESERVED_ADDRS_SCHEMA } from './reserved-addrs.schema.js';

const NAME = 'reserved_addrs';
const PATH = '/reserved_addrs';

/** The spec's default region of a reserved address. */
export const DEFAULT_REGION = 'us';

function fromApi(raw: unknown): LiveObject {
  const object = expectObject(raw, NAME, 'reserved address');
  return buildLiveObject({
    kind: NAME,
    id: expectId(object, NAME),
    raw,
    createdAt: object.created_at,
    metadata: object.metadata,
    spec: {
      description: optionalString(object, 'description'),
      region: optionalString(object, 'region') ?? DEFAULT_REGION,
      endpoint_configuration_id: refId(object.endpoint_configuration) ?? undefined,
    },
    outputs: { addr: object.addr },
  });
}

function normalizeDesired(spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return normalizeDesiredFields(spec, {
    region: spec.region ?? DEFAULT_REGION,
    endpoint_configuration_id: spec.endpoint_configuration_id ?? undefined,
  });
}

export const reservedAddrs: Kind = {
  name: NAME,
  title: 'reserved address',
  idPrefix: ID_PREFIXES.reserved_addr,
  ownership: 'metadata',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
    // The create request has no endpoint_configuration_id: a PATCH after the create attaches it.
    { name: 'endpoint_configuration_id', onChange: 'update', setAfterCreate: true },
    { name: 'region', onChange: 'replace' },
  ],
  modules: [],
  schema: RESERVED_ADDRS_SCHEMA,
  readLive: (ctx) => listLiveObjects(ctx.api, { kind: NAME, path: PATH, listKey: NAME }, fromApi, ctx.signal),
  fromApi,
  normalizeDesired,
  createRequest: (spec, metadata): ApiRequest => ({
    method: 'POST',
    path: PATH,
    body: withoutUndefined({
      description: spec.description,
      metadata,
      region: spec.region ?? DEFAULT_REGION,
    }),
  }),
  updateRequest: (id, changed): ApiRequest => ({
    method: 'PATCH',
    path: `${PATH}/${id}`,
    body: patchBody(changed, ['description', 'metadata', 'endpoint_configuration_id'], {
      endpoint_configuration_id: null,
    }),
  }),
  deleteRequest: (id): ApiRequest => ({ method: 'DELETE', path: `${PATH}/${id}` }),
  moduleRequest: rejectModule(NAME),
  moduleReadRequest: rejectModule(NAME),
};
