import { type KindSchema, METADATA_SCHEMA, PROTECT_SCHEMA } from '../kind-schema.js';

/** The manifest schema's part for reserved_addrs; `npm run schemas` assembles the parts into schemas/manifest.schema.json. */
export const RESERVED_ADDRS_SCHEMA: KindSchema = {
  collection: 'Reserved addresses',
  entry: 'reserved_addr',
  definitions: {
    reserved_addr: {
      type: 'object',
      description: 'A reserved address (hostname:port) in a region.',
      additionalProperties: false,
      properties: {
        id: {
          type: 'string',
          pattern: '^ra_[A-Za-z0-9]+$',
          description: 'Adopt this existing reserved address (ra_…) under the entry name.',
        },
        description: {
          type: 'string',
          maxLength: 255,
          description:
            'What the address is used for, at most 255 bytes of UTF-8 (maxLength counts characters; edgesync checks bytes).',
        },
        metadata: METADATA_SCHEMA,
        region: {
          type: 'string',
          enum: ['au', 'eu', 'ap', 'us', 'jp', 'in', 'sa'],
          default: 'us',
          description:
            'Region of the address; default us. Changing it replaces the address (a new hostname:port).',
        },
        endpoint_configuration_id: {
          type: 'string',
          pattern: '^ec_[A-Za-z0-9]+$',
          description: 'ID (ec_…) of an existing endpoint configuration to attach.',
        },
        protect: PROTECT_SCHEMA,
      },
    },
  },
};
