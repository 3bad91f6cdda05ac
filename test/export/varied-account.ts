import { readFileSync } from 'node:fs';
import { type ApiClient, createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import type { EmulatorSeed } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';

export const OWNER = 'team-a';
export const CORP_ROOT_PEM = readFileSync('test/fixtures/certs/corp-root.pem', 'utf8');
export const PARTNER_PEM = readFileSync('test/fixtures/certs/partner-ca.pem', 'utf8');

/** Secret values the account holds; none may appear in an export. */
export const SECRETS = {
  webOidc: 'oidc-secret-Web-4f9c2a71',
  adminOidc: 'oidc-secret-Admin-77d1e0b3',
  webhook: 'webhook-secret-b81f33aa90',
  oauth: 'oauth-client-secret-1c55e2f0',
} as const;

const OFFICE = 'ipp_OfficeVpnPolicy000000000001';
const BLOCK = 'ipp_BlockListPolicy000000000001';

export const IDS = {
  tcpEdge: 'edgtcp_SshEdge00000000000000000001',
  tcpEdgeBare: 'edgtcp_BareEdge0000000000000000001',
  tlsEdge: 'edgtls_DbEdge000000000000000000001',
  ownedCa: 'ca_CorpRootCa00000000000000000',
  unmanagedCa: 'ca_PartnerCa000000000000000000',
  ownedEdge: 'edghts_WebEdge00000000000000000001',
  unmanagedEdge: 'edghts_AdminEdge000000000000000001',
} as const;

const mine = (name: string, user?: Record<string, unknown>): string =>
  encodeMetadata(user, { owner: OWNER, name });
const theirs = (name: string): string => encodeMetadata(undefined, { owner: 'team-b', name });

/**
 * An account with a bit of everything: several pages of each listed kind
 * (with a page size of 2), owned, unmanaged and foreign objects, names that
 * collide, metadata that is not JSON, edge and route modules, and secrets.
 */
export const VARIED_SEED: EmulatorSeed = {
  ip_policies: [
    { id: OFFICE, description: 'office VPN' },
    { id: BLOCK, description: 'block list' },
  ],
  endpoint_configurations: [{ id: 'ec_BastionEndpointConfig000001', description: 'bastion' }],
  certificate_authorities: [
    { id: IDS.ownedCa, ca_pem: CORP_ROOT_PEM, description: 'Corp root', metadata: mine('corp-root') },
    { id: IDS.unmanagedCa, ca_pem: PARTNER_PEM, description: 'Partner CA' },
    { ca_pem: CORP_ROOT_PEM, description: 'Other team root', metadata: theirs('their-root') },
  ],
  ip_policy_rules: [
    {
      cidr: '203.0.113.0/24',
      ip_policy_id: OFFICE,
      action: 'allow',
      description: 'Office VPN',
      metadata: mine('office-vpn', { team: 'network' }),
    },
    {
      cidr: '198.51.100.0/24',
      ip_policy_id: BLOCK,
      action: 'deny',
      description: 'Scanner',
      metadata: mine('scanner'),
    },
    { cidr: '2001:db8::/32', ip_policy_id: OFFICE, action: 'allow', metadata: mine('ipv6-office') },
    { cidr: '192.0.2.0/24', ip_policy_id: OFFICE, action: 'deny', description: 'Legacy range' },
    { cidr: '192.0.2.128/25', ip_policy_id: BLOCK, action: 'deny', description: 'Twin' },
    { cidr: '10.0.0.0/8', ip_policy_id: BLOCK, action: 'deny', description: 'Twin' },
    { cidr: '172.16.0.0/12', ip_policy_id: BLOCK, action: 'allow', metadata: '{"name":"Private Net"}' },
    {
      cidr: '100.64.0.0/10',
      ip_policy_id: OFFICE,
      action: 'allow',
      description: 'CGNAT',
      metadata: 'not json',
    },
    { cidr: '198.18.0.0/15', ip_policy_id: OFFICE, action: 'deny', metadata: theirs('bench') },
  ],
  reserved_addrs: [
    {
      description: 'SSH bastion',
      region: 'eu',
      metadata: mine('ssh-bastion'),
      endpoint_configuration_id: 'ec_BastionEndpointConfig000001',
    },
    { description: 'Default region', metadata: mine('default-region') },
    { description: 'Unmanaged address', region: 'ap' },
  ],
  https_edges: [
    {
      id: IDS.ownedEdge,
      description: 'web',
      hostports: ['web.example.com:443', 'www.example.com:443'],
      metadata: mine('web'),
      mutual_tls: { enabled: true, certificate_authority_ids: [IDS.ownedCa, IDS.unmanagedCa] },
      tls_termination: { enabled: true, min_version: '1.2' },
      routes: [
        {
          match_type: 'path_prefix',
          match: '/app',
          description: 'web application',
          oidc: {
            issuer: 'https://accounts.example.com',
            client_id: 'edge-app',
            client_secret: SECRETS.webOidc,
            scopes: ['openid', 'email'],
            inactivity_timeout: 600,
          },
        },
        {
          match_type: 'path_prefix',
          match: '/hooks',
          webhook_verification: { provider: 'github', secret: SECRETS.webhook },
          compression: { enabled: true },
        },
        {
          match_type: 'exact_path',
          match: '/login',
          // Disabled: one route of an edge may authenticate, and this edge's is /app.
          oauth: {
            enabled: false,
            provider: {
              google: { client_id: 'g-app', client_secret: SECRETS.oauth, email_domains: ['example.com'] },
            },
          },
        },
        { match_type: 'path_prefix', match: '/static' },
      ],
    },
    {
      id: IDS.unmanagedEdge,
      description: 'Admin',
      hostports: ['admin.example.com:443'],
      routes: [
        {
          match_type: 'path_prefix',
          match: '/',
          oidc: { issuer: 'https://login.example.com', client_id: 'admin', client_secret: SECRETS.adminOidc },
        },
      ],
    },
    { description: 'Bare', hostports: ['bare.example.com:443'], metadata: mine('bare') },
  ],
  tcp_edges: [
    {
      id: IDS.tcpEdge,
      description: 'SSH',
      hostports: ['1.tcp.eu.edge.example:22022'],
      ip_restriction: { ip_policy_ids: [OFFICE, BLOCK] },
    },
    { id: IDS.tcpEdgeBare, description: 'bare', hostports: ['2.tcp.eu.edge.example:22022'] },
  ],
  tls_edges: [
    {
      id: IDS.tlsEdge,
      description: 'database',
      hostports: ['db.example.com:443'],
      mutual_tls: { certificate_authority_ids: [IDS.ownedCa] },
      tls_termination: { terminate_at: 'edge', min_version: '1.3' },
    },
  ],
};

/** Module-only edges to export, as `--tcp-edge`/`--tls-edge` would name them. */
export const MODULE_EDGE_IDS = { tcp_edges: [IDS.tcpEdge, IDS.tcpEdgeBare], tls_edges: [IDS.tlsEdge] };

/** The environment a plan of an export needs: the secret variables, set to the account's values. */
export function secretEnvironment(): Record<string, string> {
  return {
    EDGESYNC_HTTPS_EDGES_WEB_APP_OIDC_CLIENT_SECRET: SECRETS.webOidc,
    EDGESYNC_HTTPS_EDGES_ADMIN_OIDC_CLIENT_SECRET: SECRETS.adminOidc,
  };
}

export interface VariedAccount {
  readonly emulator: RunningEmulator;
  readonly api: ApiClient;
  close(): Promise<void>;
}

export async function startVariedAccount(): Promise<VariedAccount> {
  const emulator = await startEmulator({ seed: VARIED_SEED, pageSizeMax: 2 });
  const api = createApiClient({
    baseUrl: emulator.url,
    apiKey: emulator.apiKey,
    budget: new RequestBudget({ requests: 100_000, windowMs: 1000 }),
  });
  return { emulator, api, close: () => emulator.close() };
}
