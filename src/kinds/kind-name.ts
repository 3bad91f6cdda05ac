/**
 * The built-in kinds' names, in the order they are listed in manifests, plans
 * and exports: light, for the modules that must not load every kind (flags,
 * the saved plan's checks). `tcp_edges` and `tls_edges` are existing edges
 * whose modules only are managed.
 */
export const KIND_NAMES = [
  'ip_policy_rules',
  'reserved_addrs',
  'certificate_authorities',
  'https_edges',
  'tcp_edges',
  'tls_edges',
] as const;

/** The name of one of the built-in kinds. */
export type BuiltInKindName = (typeof KIND_NAMES)[number];

/**
 * A kind's name. Open, not a union: which kinds exist is the registry in use,
 * a value (the built-in KINDS, or a test's registry with a kind of its own,
 * test/support/sample-kind.ts), so a kind added to a registry needs no edit
 * here. Maps keyed by it may lack a kind the registry in use does not hold.
 */
export type KindName = string;

/** Whether `value` names one of the built-in kinds. */
export function isKindName(value: string): value is BuiltInKindName {
  return (KIND_NAMES as readonly string[]).includes(value);
}

/** ID prefixes of the spec, for every resource a manifest may name by ID. */
export const ID_PREFIXES = {
  ip_policy_rule: 'ipr_',
  ip_policy: 'ipp_',
  reserved_addr: 'ra_',
  certificate_authority: 'ca_',
  endpoint_configuration: 'ec_',
  https_edge: 'edghts_',
  https_edge_route: 'edghtsrt_',
  tcp_edge: 'edgtcp_',
  tls_edge: 'edgtls_',
} as const;

export type IdPrefixedResource = keyof typeof ID_PREFIXES;
