import { checkObject, type FieldRule, invalidField, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import { checkReferences, refTo } from '../../emulator/references.js';
import { isRecord } from '../../json-value.js';
import {
  IP_POLICIES_EMPTY,
  IP_POLICY_ID_MALFORMED,
  IP_POLICY_NOT_FOUND,
} from '../edge-modules/emulator-errors.js';
import { IP_POLICIES } from '../referenced-resources/emulator.js';
import {
  CLIENT_ID_MISSING,
  CLIENT_SECRET_MISSING,
  COOKIE_PREFIX,
  INACTIVITY_TOO_LONG,
  ISSUER_MISSING,
  ISSUER_TOO_LONG,
  SESSION_TOO_LONG,
  SEVERAL_AUTH_MODULES,
} from './emulator-errors.js';

/**
 * The modules of an HTTPS edge route. The spec gives write endpoints only for
 * OIDC; the emulator accepts all of them on route creation (and in seeds) so
 * that reads show what a real account can hold. Stored as checked, with
 * `enabled` filled in; ID lists become Refs when rendered.
 */
export const ROUTE_MODULE_NAMES = [
  'backend',
  'ip_restriction',
  'circuit_breaker',
  'compression',
  'request_headers',
  'response_headers',
  'webhook_verification',
  'oauth',
  'saml',
  'oidc',
  'websocket_tcp_converter',
] as const;

export type RouteModuleName = (typeof ROUTE_MODULE_NAMES)[number];

/**
 * Supported webhook providers (the spec does not list them). `sns`, the
 * public cloud's notification service, is the one that needs no secret.
 */
export const WEBHOOK_PROVIDERS = [
  'github',
  'gitlab',
  'bitbucket',
  'slack',
  'stripe',
  'twilio',
  'shopify',
  'sendgrid',
  'mailgun',
  'pagerduty',
  'zoom',
  'sns',
] as const;

const SECRETLESS_WEBHOOK_PROVIDERS: readonly string[] = ['sns'];

export const OAUTH_PROVIDERS = [
  'github',
  'facebook',
  'microsoft',
  'google',
  'linkedin',
  'gitlab',
  'twitch',
  'amazon',
] as const;

/** The subset of SAML NameID formats the emulator supports. */
export const SAML_NAMEID_FORMATS = [
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
] as const;

const ENABLED = { enabled: { type: 'boolean' } } as const satisfies ObjectRules;

const OAUTH_PROVIDER_RULES: ObjectRules = {
  client_id: { type: 'string' },
  client_secret: { type: 'string' },
  scopes: { type: 'string-list' },
  email_addresses: { type: 'string-list' },
  email_domains: { type: 'string-list' },
};

const GITHUB_PROVIDER_RULES: ObjectRules = {
  ...OAUTH_PROVIDER_RULES,
  teams: { type: 'string-list' },
  organizations: { type: 'string-list' },
};

/** Session lengths are capped at one year, in seconds. */
export const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

const COOKIE_PREFIX_PATTERN = { regex: /^[A-Za-z0-9.]*$/, expected: 'letters, digits and periods only' };

const CHECKED_COOKIE_PREFIX: FieldRule = {
  type: 'string',
  pattern: COOKIE_PREFIX_PATTERN,
  refusals: { invalid: COOKIE_PREFIX },
};

const SESSION_RULES: ObjectRules = {
  options_passthrough: { type: 'boolean' },
  cookie_prefix: CHECKED_COOKIE_PREFIX,
  inactivity_timeout: { type: 'uint32', max: ONE_YEAR_SECONDS, refusals: { invalid: INACTIVITY_TOO_LONG } },
  maximum_duration: { type: 'uint32', max: ONE_YEAR_SECONDS, refusals: { invalid: SESSION_TOO_LONG } },
};

/** OIDC's cookie prefix is checked only under `openid-cookie-prefix=checked` (oidcRules). */
export const OIDC_RULES: ObjectRules = {
  ...ENABLED,
  ...SESSION_RULES,
  issuer: {
    type: 'string',
    required: true,
    format: 'url',
    maxBytes: 255,
    refusals: { missing: ISSUER_MISSING, tooLong: ISSUER_TOO_LONG },
  },
  client_id: {
    type: 'string',
    required: true,
    format: 'non-empty',
    refusals: { missing: CLIENT_ID_MISSING, invalid: CLIENT_ID_MISSING },
  },
  client_secret: {
    type: 'string',
    required: true,
    format: 'non-empty',
    refusals: { missing: CLIENT_SECRET_MISSING, invalid: CLIENT_SECRET_MISSING },
  },
  scopes: { type: 'string-list' },
};

const OIDC_ANY_COOKIE_PREFIX: ObjectRules = { ...OIDC_RULES, cookie_prefix: { type: 'string' } };

/**
 * The family words its cookie prefix rule (7042) for OAuth, and whether
 * OIDC has it is not documented: the variant `openid-cookie-prefix` says.
 */
function oidcRules(env: HandlerEnv): ObjectRules {
  return env.variants['openid-cookie-prefix'] === 'checked' ? OIDC_RULES : OIDC_ANY_COOKIE_PREFIX;
}

const MODULE_RULES: Readonly<Record<RouteModuleName, ObjectRules>> = {
  backend: { ...ENABLED, backend_id: { type: 'string', required: true, format: 'non-empty' } },
  ip_restriction: {
    ...ENABLED,
    ip_policy_ids: {
      type: 'string-list',
      required: true,
      minItems: 1,
      refusals: { missing: IP_POLICIES_EMPTY, invalid: IP_POLICIES_EMPTY },
    },
  },
  // Every number of a circuit breaker is positive: a zero window or threshold never trips or always does.
  circuit_breaker: {
    ...ENABLED,
    tripped_duration: { type: 'uint32', min: 1 },
    rolling_window: { type: 'uint32', min: 1 },
    num_buckets: { type: 'uint32', min: 1, max: 128 },
    volume_threshold: { type: 'uint32', min: 1 },
    error_threshold_percentage: { type: 'number', min: 0, max: 1, minExclusive: true },
  },
  compression: ENABLED,
  request_headers: { ...ENABLED, add: { type: 'string-map' }, remove: { type: 'string-list' } },
  response_headers: { ...ENABLED, add: { type: 'string-map' }, remove: { type: 'string-list' } },
  webhook_verification: {
    ...ENABLED,
    provider: { type: 'string', required: true, oneOf: WEBHOOK_PROVIDERS },
    secret: { type: 'string' },
  },
  oauth: {
    ...ENABLED,
    ...SESSION_RULES,
    auth_check_interval: { type: 'uint32' },
    provider: {
      type: 'object',
      required: true,
      minKeys: 1,
      maxKeys: 1,
      fields: Object.fromEntries(
        OAUTH_PROVIDERS.map((name) => [
          name,
          { type: 'object', fields: name === 'github' ? GITHUB_PROVIDER_RULES : OAUTH_PROVIDER_RULES },
        ]),
      ),
    },
  },
  saml: {
    ...ENABLED,
    ...SESSION_RULES,
    idp_metadata: { type: 'string' },
    force_authn: { type: 'boolean' },
    allow_idp_initiated: { type: 'boolean' },
    authorized_groups: { type: 'string-list' },
    nameid_format: { type: 'string', oneOf: SAML_NAMEID_FORMATS },
  },
  oidc: OIDC_RULES,
  websocket_tcp_converter: ENABLED,
};

/** The three provider rules of the spec, for each provider object given. */
function checkOauthProviders(provider: Readonly<Record<string, unknown>>, path: string): void {
  for (const [name, value] of Object.entries(provider)) {
    const config = value as Record<string, unknown>;
    const at = `${path}.provider.${name}`;
    if (config.client_id !== undefined && config.client_secret === undefined) {
      throw invalidField(`${at}.client_secret`, 'is required when client_id is set');
    }
    if (config.client_secret !== undefined && config.client_id === undefined) {
      throw invalidField(`${at}.client_id`, 'is required when client_secret is set');
    }
    if (
      config.scopes !== undefined &&
      (config.client_id === undefined || config.client_secret === undefined)
    ) {
      throw invalidField(`${at}.scopes`, 'may be set only when both client_id and client_secret are set');
    }
  }
}

/** The family's rule: a route authenticates with at most one of these. */
export const AUTH_MODULE_NAMES = ['oauth', 'oidc', 'saml'] as const;

/**
 * The authenticating modules (oauth, oidc, saml) the route's modules enable:
 * the family's rules on them (7079, 7155) count enabled ones, so one kept
 * with `enabled: false` takes no route's place.
 */
export function authModulesOf(modules: Readonly<Record<string, unknown>>): string[] {
  return AUTH_MODULE_NAMES.filter((name) => {
    const module = modules[name];
    return isRecord(module) && module.enabled !== false;
  });
}

/**
 * 400 conflict (the family's 7079) when the route's modules, as they would
 * be after a change, set two of oauth, oidc, saml; `changed` names the
 * module the request sets, the field at fault.
 */
export function checkOneAuthModule(modules: Readonly<Record<string, unknown>>, changed?: string): void {
  const set = authModulesOf(modules);
  const field = set.length > 1 ? (changed ?? set[1]) : undefined;
  if (field !== undefined) {
    throw SEVERAL_AUTH_MODULES.refuseField(
      field,
      `a route takes at most one of oauth, oidc and saml (found ${set.join(', ')})`,
    );
  }
}

/** Validates one route module body; `path` is the module's dotted name in the request. */
export function checkRouteModule(
  env: HandlerEnv,
  name: RouteModuleName,
  value: unknown,
  path: string,
): Record<string, unknown> {
  const checked = checkObject(value, name === 'oidc' ? oidcRules(env) : MODULE_RULES[name], path);
  if (name === 'ip_restriction') {
    checked.ip_policy_ids = [...new Set(checked.ip_policy_ids as string[])];
    checkReferences(env, IP_POLICIES, checked.ip_policy_ids as string[], `${path}.ip_policy_ids`, {
      malformed: IP_POLICY_ID_MALFORMED,
      missing: IP_POLICY_NOT_FOUND,
    });
  }
  if (name === 'webhook_verification') {
    const provider = checked.provider as string;
    if (!SECRETLESS_WEBHOOK_PROVIDERS.includes(provider) && !checked.secret) {
      throw invalidField(`${path}.secret`, `is required for provider "${provider}"`);
    }
  }
  if (name === 'oauth') checkOauthProviders(checked.provider as Record<string, unknown>, path);
  return { enabled: true, ...checked };
}

/** The OIDC module with every field, as its endpoints answer: unset numbers 0, strings "", lists []. */
export function renderOidc(stored: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return {
    enabled: stored.enabled ?? true,
    options_passthrough: stored.options_passthrough ?? false,
    cookie_prefix: stored.cookie_prefix ?? '',
    inactivity_timeout: stored.inactivity_timeout ?? 0,
    maximum_duration: stored.maximum_duration ?? 0,
    issuer: stored.issuer ?? '',
    client_id: stored.client_id ?? '',
    client_secret: stored.client_secret ?? '',
    scopes: [...((stored.scopes as string[] | undefined) ?? [])],
  };
}

export function renderRouteModule(
  env: HandlerEnv,
  name: RouteModuleName,
  stored: Readonly<Record<string, unknown>>,
  routeUri: string,
): Record<string, unknown> {
  switch (name) {
    case 'backend': {
      const id = stored.backend_id as string;
      return { enabled: stored.enabled, backend: { id, uri: `${env.baseUrl}/backends/${id}` } };
    }
    case 'ip_restriction':
      return {
        enabled: stored.enabled,
        ip_policies: (stored.ip_policy_ids as string[]).map((id) => refTo(env, IP_POLICIES, id)),
      };
    case 'oidc':
      return renderOidc(stored);
    case 'saml':
      // The SP side is the service's: these URLs are output-only.
      return {
        ...stored,
        entity_id: `${routeUri}/saml/metadata`,
        metadata_url: `${routeUri}/saml/metadata`,
        assertion_consumer_service_url: `${routeUri}/saml/acs`,
        single_logout_url: `${routeUri}/saml/slo`,
        request_signing_certificate_pem: '',
        nameid_format: stored.nameid_format ?? SAML_NAMEID_FORMATS[0],
      };
    default:
      return structuredClone({ ...stored });
  }
}
