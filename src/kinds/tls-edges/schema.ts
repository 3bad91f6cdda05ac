import { MUTUAL_TLS_SCHEMA } from '../edge-modules/mutual-tls-module.js';
import type { KindSchema } from '../kind-schema.js';

/** The manifest schema's part for tls_edges; `npm run schemas` assembles the parts into schemas/manifest.schema.json. */
export const TLS_EDGES_SCHEMA: KindSchema = {
  collection: 'Existing TLS edges whose modules are managed',
  entry: 'tls_edge',
  definitions: {
    tls_edge: {
      type: 'object',
      description: 'An existing TLS edge whose modules are managed.',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: {
          type: 'string',
          pattern: '^edgtls_[A-Za-z0-9]+$',
          description: 'ID (edgtls_…) of the existing TLS edge.',
        },
        mutual_tls: MUTUAL_TLS_SCHEMA,
        tls_termination: {
          type: ['object', 'null'],
          description: 'TLS termination module. null removes it.',
          additionalProperties: false,
          properties: {
            enabled: {
              type: 'boolean',
              default: true,
              description: 'Whether the module applies to traffic; default true.',
            },
            terminate_at: {
              type: 'string',
              enum: ['edge', 'upstream'],
              default: 'edge',
              description: 'edge: the edge terminates TLS; upstream: TLS passes through to the upstream.',
            },
            min_version: {
              type: ['string', 'null'],
              enum: ['1.0', '1.1', '1.2', '1.3', null],
              description:
                'Minimum TLS version, quoted ("1.2": unquoted 1.2 is a number). If unset the service picks a default. Must be null or absent when terminate_at is upstream.',
            },
          },
        },
      },
    },
  },
};
