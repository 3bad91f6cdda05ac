import type { CaCertificateFacts } from '../kinds/certificate-authorities/emulator-ca-certificate.js';

/**
 * What the emulator stores. References are kept as IDs and rendered as Refs
 * `{ id, uri }` on the way out, so stored data never depends on the URL the
 * server happens to listen on (a data file survives a restart on a new port).
 */
export interface BaseRecord {
  readonly id: string;
  readonly created_at: string;
  /** Creation order across the whole store; lists sort on it, newest first. */
  readonly seq: number;
  description?: string;
  metadata?: string;
}

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

export interface IpPolicyRecord extends BaseRecord {}
export interface EndpointConfigurationRecord extends BaseRecord {}

export interface IpPolicyRuleRecord extends BaseRecord {
  cidr: string;
  readonly ip_policy_id: string;
  readonly action: 'allow' | 'deny';
}

export interface ReservedAddrRecord extends BaseRecord {
  readonly addr: string;
  readonly region: string;
  endpoint_configuration_id: string | null;
}

/** The stored CA: its PEM and the facts the service derives from it. */
export interface CertificateAuthorityRecord extends BaseRecord, CaCertificateFacts {}

export interface HttpsEdgeRecord extends BaseRecord {
  hostports: string[];
  mutual_tls: MutualTlsModule | null;
  tls_termination: TlsTerminationModule | null;
}

/** Route modules as validated: plain JSON objects, ID lists instead of Refs (see src/kinds/https-edges/emulator-route-modules.ts). */
export type RouteModules = Record<string, Record<string, unknown> | null>;

export interface HttpsEdgeRouteRecord extends BaseRecord {
  readonly edge_id: string;
  match_type: 'exact_path' | 'path_prefix';
  match: string;
  modules: RouteModules;
}

export interface TcpEdgeRecord extends BaseRecord {
  hostports: string[];
  ip_restriction: IpRestrictionModule | null;
}

export interface TlsEdgeRecord extends BaseRecord {
  hostports: string[];
  mutual_tls: MutualTlsModule | null;
  tls_termination: TlsTerminationModule | null;
}

export interface CollectionRecords {
  ip_policies: IpPolicyRecord;
  endpoint_configurations: EndpointConfigurationRecord;
  ip_policy_rules: IpPolicyRuleRecord;
  reserved_addrs: ReservedAddrRecord;
  certificate_authorities: CertificateAuthorityRecord;
  https_edges: HttpsEdgeRecord;
  https_edge_routes: HttpsEdgeRouteRecord;
  tcp_edges: TcpEdgeRecord;
  tls_edges: TlsEdgeRecord;
}

export type CollectionName = keyof CollectionRecords;

export const COLLECTION_NAMES: readonly CollectionName[] = [
  'ip_policies',
  'endpoint_configurations',
  'ip_policy_rules',
  'reserved_addrs',
  'certificate_authorities',
  'https_edges',
  'https_edge_routes',
  'tcp_edges',
  'tls_edges',
];
