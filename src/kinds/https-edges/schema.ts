import { MUTUAL_TLS_SCHEMA } from '../edge-modules/mutual-tls-module.js';
import { type KindSchema, METADATA_SCHEMA, PROTECT_SCHEMA, secretValueSchema } from '../kind-schema.js';
import { ONE_YEAR_SECONDS } from './oidc-module.js';

/** The manifest schema's part for https_edges; `npm run schemas` assembles the parts into schemas/manifest.schema.json. */
export const HTTPS_EDGES_SCHEMA: KindSchema = {
  collection: 'HTTPS edges',
  entry: 'https_edge',
  definitions: {
    https_edge: {
      type: 'object',
      description:
        'An HTTPS edge. Without id it is created; with id the existing edge is adopted. Routes are selected, not created.',
      additionalProperties: false,
      properties: {
        id: {
          type: 'string',
          pattern: '^edghts_[A-Za-z0-9]+$',
          description: 'Adopt this existing HTTPS edge (edghts_…) under the entry name.',
        },
        hostports: {
          type: 'array',
          description: 'hostname:port pairs the edge serves. Required unless id is given.',
          uniqueItems: true,
          items: {
            type: 'string',
            pattern: '^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?:[0-9]{1,5}$',
            description:
              'hostname:443, e.g. web.example.com:443: a domain name (labels of 1 to 63 letters, digits and inner hyphens, a first label may be *; at most 253 characters), not an IP address, on port 443, the one port the service serves HTTPS edges on.',
          },
        },
        description: {
          type: 'string',
          maxLength: 255,
          description:
            'Human-readable description, at most 255 bytes of UTF-8. (maxLength here counts characters; edgesync checks the byte length.)',
        },
        metadata: METADATA_SCHEMA,
        protect: PROTECT_SCHEMA,
        mutual_tls: MUTUAL_TLS_SCHEMA,
        tls_termination: {
          type: ['object', 'null'],
          description:
            'TLS termination module (an HTTPS edge always terminates at the edge). null removes the module.',
          additionalProperties: false,
          properties: {
            enabled: {
              type: 'boolean',
              default: true,
              description: 'Whether the module applies to traffic; default true.',
            },
            min_version: {
              type: 'string',
              enum: ['1.0', '1.1', '1.2', '1.3'],
              description:
                'Minimum TLS version, quoted ("1.2": unquoted 1.2 is a number). If unset the service picks a default.',
            },
          },
        },
        routes: {
          type: 'array',
          description:
            'Existing routes of the edge whose OIDC module is managed. Select each by id, or by match_type and match, not both.',
          items: { $ref: '#/definitions/route' },
        },
      }, // Each `required` names its property under `properties` too, as Ajv's strictRequired asks.
      if: {
        not: {
          required: ['id'],
          properties: { id: { description: 'With id, the edge is adopted and hostports may be left out.' } },
        },
      },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited.
      then: {
        required: ['hostports'],
        properties: { hostports: { description: 'Without id, the edge is created and needs hostports.' } },
      },
    },
    route: {
      type: 'object',
      description:
        'Selects one existing route by id, or by match_type and match (not both), and sets its modules.',
      additionalProperties: false,
      properties: {
        id: {
          type: 'string',
          pattern: '^edghtsrt_[A-Za-z0-9]+$',
          description: 'ID (edghtsrt_…) of the route.',
        },
        match_type: {
          type: 'string',
          enum: ['exact_path', 'path_prefix'],
          description: 'exact_path or path_prefix; with match, selects the route.',
        },
        match: {
          type: 'string',
          minLength: 1,
          description:
            'The route selector (a path, hostname, or hostname plus path); with match_type, selects the route.',
        },
        oidc: {
          type: ['object', 'null'],
          description: 'OpenID Connect module of the route. null removes it; absent leaves it as it is.',
          additionalProperties: false,
          required: ['issuer', 'client_id', 'client_secret'],
          properties: {
            enabled: {
              type: 'boolean',
              default: true,
              description: 'Whether the module applies to traffic; default true.',
            },
            options_passthrough: {
              type: 'boolean',
              default: false,
              description: 'Do not enforce authentication on HTTP OPTIONS requests (needed for CORS).',
            },
            cookie_prefix: {
              type: 'string',
              pattern: '^[A-Za-z0-9.]*$',
              description:
                'Prefix of the session cookie: letters, digits and periods only; the service default is its name followed by a dot.',
            },
            inactivity_timeout: {
              type: 'integer',
              minimum: 0,
              maximum: ONE_YEAR_SECONDS,
              description: 'Seconds of inactivity before re-authentication; at most one year (31536000).',
            },
            maximum_duration: {
              type: 'integer',
              minimum: 0,
              maximum: ONE_YEAR_SECONDS,
              description: 'Maximum session length in seconds; at most one year (31536000).',
            },
            issuer: {
              type: 'string',
              minLength: 1,
              maxLength: 255,
              description:
                'URL of the OpenID provider, used for discovery: https (http only for localhost), at most 255 bytes of UTF-8 (maxLength counts characters; edgesync checks bytes).',
            },
            client_id: {
              type: 'string',
              minLength: 1,
              description: 'Client ID of the OIDC app, also the audience.',
            },
            client_secret: secretValueSchema(
              'Client secret of the OIDC app; prefer { env } or { file } over a literal.',
            ),
            scopes: {
              type: 'array',
              uniqueItems: true,
              items: { type: 'string', minLength: 1 },
              description: 'Scopes requested from the provider, e.g. [openid, email].',
            },
          },
        },
      },
    },
  },
};
