import { type KindSchema, METADATA_SCHEMA, PROTECT_SCHEMA } from '../kind-schema.js';

/** The manifest schema's part for ip_policy_rules; `npm run schemas` assembles the parts into schemas/manifest.schema.json. */
export const IP_POLICY_RULES_SCHEMA: KindSchema = {
  collection: 'IP policy rules',
  entry: 'ip_policy_rule',
  definitions: {
    ip_policy_rule: {
      type: 'object',
      description: 'An allow or deny rule for a CIDR on an existing IP policy.',
      additionalProperties: false,
      required: ['ip_policy_id', 'cidr', 'action'],
      properties: {
        id: {
          type: 'string',
          pattern: '^ipr_[A-Za-z0-9]+$',
          description: 'Adopt this existing rule (ipr_…) under the entry name instead of creating one.',
        },
        ip_policy_id: {
          type: 'string',
          pattern: '^ipp_[A-Za-z0-9]+$',
          description:
            'ID (ipp_…) of the IP policy the rule belongs to. IP policies are not managed by edgesync, so this is always an ID. Changing it replaces the rule.',
        },
        cidr: {
          type: 'string',
          minLength: 1,
          description:
            'An IPv4/IPv6 range in CIDR notation with its mask (203.0.113.7/32 for one address), written as its network address (10.0.0.0/24, not 10.0.0.5/24).',
        },
        action: {
          type: 'string',
          enum: ['allow', 'deny'],
          description: 'allow or deny. Changing it replaces the rule.',
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
