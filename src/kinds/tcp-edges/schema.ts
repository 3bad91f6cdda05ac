import type { KindSchema } from '../kind-schema.js';

/** The manifest schema's part for tcp_edges; `npm run schemas` assembles the parts into schemas/manifest.schema.json. */
export const TCP_EDGES_SCHEMA: KindSchema = {
  collection: 'Existing TCP edges whose modules are managed',
  entry: 'tcp_edge',
  definitions: {
    tcp_edge: {
      type: 'object',
      description: 'An existing TCP edge whose modules are managed.',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: {
          type: 'string',
          pattern: '^edgtcp_[A-Za-z0-9]+$',
          description: 'ID (edgtcp_…) of the existing TCP edge.',
        },
        ip_restriction: {
          type: ['object', 'null'],
          description:
            'IP restriction module: only sources the IP policies allow may connect. null removes it.',
          additionalProperties: false,
          required: ['ip_policies'],
          properties: {
            enabled: {
              type: 'boolean',
              default: true,
              description: 'Whether the module applies to traffic; default true.',
            },
            ip_policies: {
              type: 'array',
              minItems: 1,
              uniqueItems: true,
              description:
                'IDs (ipp_…) of existing IP policies. IP policies are not managed by edgesync, so names are not accepted.',
              items: {
                type: 'string',
                pattern: '^ipp_[A-Za-z0-9]+$',
                description: 'An IP policy ID (ipp_…).',
              },
            },
          },
        },
      },
    },
  },
};
