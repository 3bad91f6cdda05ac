import { optionalString, refId } from '../api-json.js';
import type { Kind } from '../kind.js';
import { metadataKind } from '../metadata-kind.js';
import { ENDPOINT_CONFIGURATION_IDS } from '../referenced-resources/index.js';
import { RESERVED_ADDRS_SCHEMA } from './schema.js';

/** The spec's default region of a reserved address. */
export const DEFAULT_REGION = 'us';

export const reservedAddrs: Kind = metadataKind({
  name: 'reserved_addrs',
  title: 'reserved address',
  idPrefix: 'ra_',
  namedIds: [ENDPOINT_CONFIGURATION_IDS],
  path: '/reserved_addrs',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
    // The create request has no endpoint_configuration_id: a PATCH after the create attaches it.
    {
      name: 'endpoint_configuration_id',
      onChange: 'update',
      setAfterCreate: true,
      names: ENDPOINT_CONFIGURATION_IDS,
    },
    { name: 'region', onChange: 'replace', recurs: true },
  ],
  schema: RESERVED_ADDRS_SCHEMA,
  fromApi: (object) => ({
    spec: {
      region: optionalString(object, 'region') ?? DEFAULT_REGION,
      endpoint_configuration_id: refId(object.endpoint_configuration) ?? undefined,
    },
    outputs: { addr: object.addr },
  }),
  normalizeOwn: (spec) => ({
    region: spec.region ?? DEFAULT_REGION,
    endpoint_configuration_id: spec.endpoint_configuration_id ?? undefined,
  }),
  createDefaults: { region: DEFAULT_REGION },
  // The family detaches with a DELETE of its own (its Go client's DeleteEndpointConfig):
  // its update reads endpoint_configuration_id null as "not sent", so a PATCH never detaches.
  clearedBy: {
    endpoint_configuration_id: (id) => ({
      method: 'DELETE',
      path: `/reserved_addrs/${id}/endpoint_configuration`,
    }),
  },
  probe: {
    list: { path: '/reserved_addrs', key: 'reserved_addrs' },
    object: {
      spec: (word) => ({ description: `edgesync doctor probe ${word}`, region: DEFAULT_REGION }),
      update: (word) => ({ description: `edgesync doctor probe ${word} (updated)` }),
    },
  },
  emulator: async () => (await import('./emulator.js')).RESERVED_ADDRS_PART,
});
