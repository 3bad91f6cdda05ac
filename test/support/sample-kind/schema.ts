import { type KindSchema, METADATA_SCHEMA, PROTECT_SCHEMA } from '../../../src/kinds/kind-schema.js';

/** The sample kind's part of the manifest schema, assembled with the built-in parts when a test registers it. */
export const SAMPLE_KIND_SCHEMA: KindSchema = {
  collection: 'Reserved domains (a test-only sample kind)',
  entry: 'reserved_domain',
  definitions: {
    reserved_domain: {
      type: 'object',
      description: 'A reserved domain: a hostname the account serves.',
      additionalProperties: false,
      required: ['domain'],
      properties: {
        id: {
          type: 'string',
          pattern: '^rd_[A-Za-z0-9]+$',
          description: 'Adopt this existing reserved domain (rd_…) under the entry name.',
        },
        domain: {
          type: 'string',
          pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$',
          maxLength: 253,
          description: 'The hostname; changing it replaces the reserved domain.',
        },
        description: {
          type: 'string',
          maxLength: 255,
          description: 'Human-readable description, at most 255 bytes of UTF-8.',
        },
        metadata: METADATA_SCHEMA,
        protect: PROTECT_SCHEMA,
      },
    },
  },
};
