import { type KindSchema, METADATA_SCHEMA, PROTECT_SCHEMA } from '../../src/kinds/kind-schema.js';

/** The sample kind's part of the manifest schema, assembled with the built-in parts when a test registers it. */
export const SAMPLE_KIND_SCHEMA: KindSchema = {
  collection: 'Endpoint configurations (a test-only sample kind)',
  entry: 'endpoint_configuration',
  definitions: {
    endpoint_configuration: {
      type: 'object',
      description: 'An endpoint configuration: here only its description and metadata.',
      additionalProperties: false,
      properties: {
        id: {
          type: 'string',
          pattern: '^ec_[A-Za-z0-9]+$',
          description: 'Adopt this existing endpoint configuration (ec_…) under the entry name.',
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
