import { checkObject, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import { checkReferences, refTo } from '../../emulator/references.js';
import { invalidField } from '../../emulator/service-error.js';
import { CERTIFICATE_AUTHORITIES } from '../certificate-authorities/emulator.js';
import { IP_POLICIES } from '../referenced-resources/emulator.js';

export interface MutualTlsModule {
  enabled: boolean;
  certificate_authority_ids: string[];
}

export interface IpRestrictionModule {
  enabled: boolean;
  ip_policy_ids: string[];
}

export interface TlsTerminationModule {
  enabled: boolean;
  terminate_at: 'edge' | 'upstream';
  min_version: string | null;
}

/**
 * The modules of HTTPS, TCP and TLS edges, as request rules, checks and
 * renderers. `path` prefixes field names in errors: '' for a module's own
 * PUT, `mutual_tls` inside an HTTPS edge body.
 */
export const TLS_VERSIONS = ['1.0', '1.1', '1.2', '1.3'] as const;

const MUTUAL_TLS_RULES: ObjectRules = {
  enabled: { type: 'boolean' },
  certificate_authority_ids: { type: 'string-list' },
};

/** An IP restriction without a policy restricts nothing: the family refuses it. */
const IP_RESTRICTION_RULES: ObjectRules = {
  enabled: { type: 'boolean' },
  ip_policy_ids: { type: 'string-list', required: true, minItems: 1 },
};

/** EndpointTLSTerminationAtEdge: an HTTPS edge always terminates at the edge. */
const HTTPS_TLS_TERMINATION_RULES: ObjectRules = {
  enabled: { type: 'boolean' },
  min_version: { type: 'string', oneOf: TLS_VERSIONS, nullable: true },
};

const TLS_TERMINATION_RULES: ObjectRules = {
  enabled: { type: 'boolean' },
  terminate_at: { type: 'string', oneOf: ['edge', 'upstream'] },
  min_version: { type: 'string', oneOf: TLS_VERSIONS, nullable: true },
};

function join(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

/**
 * Family clients leave out an empty list: a disabled module may come without
 * `certificate_authority_ids`; an enabled one needs it.
 */
export function checkMutualTls(env: HandlerEnv, value: unknown, path: string): MutualTlsModule {
  const checked = checkObject(value, MUTUAL_TLS_RULES, path);
  const given = checked.certificate_authority_ids as string[] | undefined;
  if (given === undefined && checked.enabled !== false) {
    throw invalidField(join(path, 'certificate_authority_ids'), 'is required unless enabled is false');
  }
  const ids = [...new Set(given ?? [])];
  checkReferences(env, CERTIFICATE_AUTHORITIES, ids, join(path, 'certificate_authority_ids'));
  return { enabled: (checked.enabled as boolean | undefined) ?? true, certificate_authority_ids: ids };
}

export function renderMutualTls(env: HandlerEnv, module: MutualTlsModule): Record<string, unknown> {
  return {
    enabled: module.enabled,
    certificate_authorities: module.certificate_authority_ids.map((id) =>
      refTo(env, CERTIFICATE_AUTHORITIES, id),
    ),
  };
}

export function checkIpRestriction(env: HandlerEnv, value: unknown, path: string): IpRestrictionModule {
  const checked = checkObject(value, IP_RESTRICTION_RULES, path);
  const ids = [...new Set(checked.ip_policy_ids as string[])];
  checkReferences(env, IP_POLICIES, ids, join(path, 'ip_policy_ids'));
  return { enabled: (checked.enabled as boolean | undefined) ?? true, ip_policy_ids: ids };
}

export function renderIpRestriction(env: HandlerEnv, module: IpRestrictionModule): Record<string, unknown> {
  return {
    enabled: module.enabled,
    ip_policies: module.ip_policy_ids.map((id) => refTo(env, IP_POLICIES, id)),
  };
}

export function checkHttpsTlsTermination(value: unknown, path: string): TlsTerminationModule {
  const checked = checkObject(value, HTTPS_TLS_TERMINATION_RULES, path);
  return {
    enabled: (checked.enabled as boolean | undefined) ?? true,
    terminate_at: 'edge',
    min_version: (checked.min_version as string | null | undefined) ?? null,
  };
}

/** `min_version` must be null or absent when TLS passes through to the upstream. */
export function checkTlsTermination(value: unknown, path: string): TlsTerminationModule {
  const checked = checkObject(value, TLS_TERMINATION_RULES, path);
  const terminateAt = (checked.terminate_at as 'edge' | 'upstream' | undefined) ?? 'edge';
  const minVersion = (checked.min_version as string | null | undefined) ?? null;
  if (terminateAt === 'upstream' && minVersion !== null) {
    throw invalidField(
      join(path, 'min_version'),
      `must be null when terminate_at is "upstream" (found "${minVersion}")`,
    );
  }
  return {
    enabled: (checked.enabled as boolean | undefined) ?? true,
    terminate_at: terminateAt,
    min_version: minVersion,
  };
}

/** An unspecified min_version is answered as null: the service's default applies. */
export function renderTlsTermination(module: TlsTerminationModule): Record<string, unknown> {
  return { enabled: module.enabled, terminate_at: module.terminate_at, min_version: module.min_version };
}
