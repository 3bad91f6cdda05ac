import { checkObject, invalidField, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import { checkReferences, refTo } from '../../emulator/references.js';
import { CERTIFICATE_AUTHORITIES } from '../certificate-authorities/emulator.js';
import { IP_POLICIES } from '../referenced-resources/emulator.js';
import {
  CA_ID_MALFORMED,
  CA_NOT_FOUND,
  IP_POLICIES_EMPTY,
  IP_POLICY_ID_MALFORMED,
  IP_POLICY_NOT_FOUND,
  MIN_VERSION_UNSUPPORTED,
  MIN_VERSION_WITH_UPSTREAM,
  TERMINATE_AT_INVALID,
} from './emulator-errors.js';

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

/** The versions of the variant `tls-min-version=1.2-up`. */
const MODERN_TLS_VERSIONS: readonly string[] = ['1.2', '1.3'];

const MUTUAL_TLS_RULES: ObjectRules = {
  enabled: { type: 'boolean' },
  certificate_authority_ids: { type: 'string-list' },
};

/** The family's numbers for a mutual TLS module's CA IDs. */
const CA_REFUSALS = { malformed: CA_ID_MALFORMED, missing: CA_NOT_FOUND };

/** An IP restriction without a policy restricts nothing: the family refuses it. */
const IP_RESTRICTION_RULES: ObjectRules = {
  enabled: { type: 'boolean' },
  ip_policy_ids: {
    type: 'string-list',
    required: true,
    minItems: 1,
    refusals: { missing: IP_POLICIES_EMPTY, invalid: IP_POLICIES_EMPTY },
  },
};

/** EndpointTLSTerminationAtEdge: an HTTPS edge always terminates at the edge (terminate_at: the edge kind's own 7109). */
const HTTPS_TLS_TERMINATION_RULES: ObjectRules = {
  enabled: { type: 'boolean' },
  min_version: { type: 'string', nullable: true },
};

const TLS_TERMINATION_RULES: ObjectRules = {
  enabled: { type: 'boolean' },
  terminate_at: { type: 'string', oneOf: ['edge', 'upstream'], refusals: { invalid: TERMINATE_AT_INVALID } },
  min_version: { type: 'string', nullable: true },
};

/** A min_version the service supports under the `tls-min-version` variant, or null. */
function checkMinVersion(env: HandlerEnv, value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  const supported: readonly string[] =
    env.variants['tls-min-version'] === '1.2-up' ? MODERN_TLS_VERSIONS : TLS_VERSIONS;
  if (!supported.includes(value as string)) {
    throw MIN_VERSION_UNSUPPORTED.refuseField(
      join(path, 'min_version'),
      `must be one of ${supported.join(', ')} (found ${JSON.stringify(value)})`,
    );
  }
  return value as string;
}

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
  checkReferences(env, CERTIFICATE_AUTHORITIES, ids, join(path, 'certificate_authority_ids'), CA_REFUSALS);
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
  checkReferences(env, IP_POLICIES, ids, join(path, 'ip_policy_ids'), {
    malformed: IP_POLICY_ID_MALFORMED,
    missing: IP_POLICY_NOT_FOUND,
  });
  return { enabled: (checked.enabled as boolean | undefined) ?? true, ip_policy_ids: ids };
}

export function renderIpRestriction(env: HandlerEnv, module: IpRestrictionModule): Record<string, unknown> {
  return {
    enabled: module.enabled,
    ip_policies: module.ip_policy_ids.map((id) => refTo(env, IP_POLICIES, id)),
  };
}

/**
 * The HTTPS edge's module: `terminate_at` is refused before anything else
 * with its own number (`refuseTerminateAt`, the HTTPS edge kind's rule).
 */
export function checkHttpsTlsTermination(
  env: HandlerEnv,
  value: unknown,
  path: string,
  refuseTerminateAt: (field: string) => Error,
): TlsTerminationModule {
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, 'terminate_at')) {
    throw refuseTerminateAt(join(path, 'terminate_at'));
  }
  const checked = checkObject(value, HTTPS_TLS_TERMINATION_RULES, path);
  return {
    enabled: (checked.enabled as boolean | undefined) ?? true,
    terminate_at: 'edge',
    min_version: checkMinVersion(env, checked.min_version, path),
  };
}

/** `min_version` must be null or absent when TLS passes through to the upstream. */
export function checkTlsTermination(env: HandlerEnv, value: unknown, path: string): TlsTerminationModule {
  const checked = checkObject(value, TLS_TERMINATION_RULES, path);
  const terminateAt = (checked.terminate_at as 'edge' | 'upstream' | undefined) ?? 'edge';
  const minVersion = checked.min_version ?? null;
  if (terminateAt === 'upstream' && minVersion !== null) {
    throw MIN_VERSION_WITH_UPSTREAM.refuseField(
      join(path, 'min_version'),
      `must be null when terminate_at is "upstream" (found ${JSON.stringify(minVersion)})`,
    );
  }
  checkMinVersion(env, minVersion, path);
  return {
    enabled: (checked.enabled as boolean | undefined) ?? true,
    terminate_at: terminateAt,
    min_version: minVersion as string | null,
  };
}

/** An unspecified min_version is answered as null: the service's default applies. */
export function renderTlsTermination(module: TlsTerminationModule): Record<string, unknown> {
  return { enabled: module.enabled, terminate_at: module.terminate_at, min_version: module.min_version };
}
