/**
 * Every top-level collection a manifest may hold, in the order they are
 * listed in manifests, plans and exports. `tcp_edges` and `tls_edges` are
 * existing edges whose modules only are managed.
 */
export const KIND_NAMES = [
  'ip_policy_rules',
  'reserved_addrs',
  'certificate_authorities',
  'https_edges',
  'tcp_edges',
  'tls_edges',
] as const;

export type KindName = (typeof KIND_NAMES)[number];

export function isKindName(value: string): value is KindName {
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
