import { type KindSchema, METADATA_SCHEMA, PROTECT_SCHEMA, secretValueSchema } from '../kind-schema.js';

/** The manifest schema's part for certificate_authorities; `npm run schemas` assembles the parts into schemas/manifest.schema.json. */
export const CERTIFICATE_AUTHORITIES_SCHEMA: KindSchema = {
  collection: 'Certificate authorities',
  entry: 'certificate_authority',
  definitions: {
    certificate_authority: {
      type: 'object',
      description:
        'A certificate authority for validating TLS client certificates. Set exactly one of ca_pem and ca_pem_file.',
      additionalProperties: false,
      properties: {
        id: {
          type: 'string',
          pattern: '^ca_[A-Za-z0-9]+$',
          description: 'Adopt this existing CA (ca_…) under the entry name.',
        },
        ca_pem: secretValueSchema(
          'PEM of the CA certificate (a CA: basicConstraints CA:TRUE). Changing it replaces the CA.',
        ),
        ca_pem_file: {
          type: 'string',
          minLength: 1,
          description:
            'Path of the PEM file, relative to this manifest; may not leave the manifest root unless --allow-outside-root.',
        },
        description: {
          type: 'string',
          maxLength: 255,
          description:
            'Human-readable description, at most 255 bytes of UTF-8. (maxLength here counts characters; edgesync checks the byte length.)',
        },
        metadata: METADATA_SCHEMA,
        protect: PROTECT_SCHEMA,
      },
    },
  },
};
