import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { EmulatorSeed, SeedEntry } from '../src/emulator/seed.js';
import { encodeMetadata } from '../src/kinds/ownership-marker.js';
import { REPO_ROOT } from './repo-root.js';

/** How many of each object the synthetic account holds. */
export interface AccountSize {
  readonly rules: number;
  readonly reservedAddrs: number;
  readonly certificateAuthorities: number;
  readonly httpsEdges: number;
  /** Routes per HTTPS edge; each carries an OIDC module. @default 2 */
  readonly routesPerEdge?: number;
  readonly tcpEdges: number;
  readonly tlsEdges: number;
}

/** An account of `rules` IP policy rules and nothing else. */
export function rulesOnly(rules: number): AccountSize {
  return { rules, reservedAddrs: 0, certificateAuthorities: 0, httpsEdges: 0, tcpEdges: 0, tlsEdges: 0 };
}

export interface SyntheticAccountOptions {
  readonly size: AccountSize;
  /** Owner of the markers written into the seed and used by the plan. */
  readonly owner: string;
  /**
   * Seed the metadata kinds (rules, reserved addresses, CAs) as already
   * managed by `owner`, so a plan of the manifests has nothing to create.
   * Edges, routes and modules are seeded bare and need one apply.
   * @default true
   */
  readonly seedManaged?: boolean;
  /**
   * Rules of both families whose CIDRs overlap (a /24 over 255 /32s, IPv6 /64s
   * under /56s), so the planner's access ordering has work to do; otherwise
   * every rule is a distinct IPv4 /32.
   * @default false
   */
  readonly overlappingCidrs?: boolean;
  /** Entries per manifest file; the loader caps one file at 5 MB. @default 1000 */
  readonly entriesPerFile?: number;
}

export interface SyntheticAccount {
  readonly seed: EmulatorSeed;
  /** Manifest files by relative path, plus the CA and secret files they reference. */
  readonly files: ReadonlyMap<string, string>;
  readonly entries: number;
}

/** The secret every synthetic OIDC module uses; scanned for by the reliability suite. */
export const SYNTHETIC_OIDC_SECRET = 'bench-oidc-secret-6f1d0c';

const BASE62_PAD = '0';

/** A spec-shaped ID: the prefix plus 27 base62 characters. */
export function syntheticId(prefix: string, label: string, index: number): string {
  const digits = String(index);
  return `${prefix}${label}${digits.padStart(27 - label.length, BASE62_PAD)}`;
}

/** A distinct IPv4 /32 per index (2^24 of them), so no two rules share a CIDR. */
export function ruleCidr(index: number): string {
  return `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}/32`;
}

/**
 * Overlapping CIDRs in both families, each unique: even indexes are IPv4
 * (the first of every 256 a /24 over the /32s after it), odd ones IPv6 /64s,
 * every 256th of which a /56 over the /64s of its block.
 */
export function overlappingRuleCidr(index: number): string {
  const half = index >> 1;
  if (index % 2 === 0) {
    const base = `10.${(half >> 16) & 255}.${(half >> 8) & 255}`;
    return half % 256 === 0 ? `${base}.0/24` : `${base}.${half & 255}/32`;
  }
  const high = ((half >> 16) & 0xffff).toString(16);
  const block = (half >> 8) & 0xff;
  const low = half & 0xff;
  const group = ((block << 8) | low).toString(16);
  return low === 0 ? `fd00:0:${high}:${(block << 8).toString(16)}::/56` : `fd00:0:${high}:${group}::/64`;
}

const REGIONS = ['us', 'eu', 'ap', 'au', 'jp', 'in', 'sa'] as const;
const POLICY_IDS = [syntheticId('ipp_', 'BenchPolicy', 1), syntheticId('ipp_', 'BenchPolicy', 2)] as const;

function policyOf(index: number): string {
  return POLICY_IDS[index % POLICY_IDS.length] as string;
}

function actionOf(index: number): 'allow' | 'deny' {
  return index % 5 === 0 ? 'deny' : 'allow';
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/**
 * An account of the given size as an emulator seed and the manifests that
 * describe it: the same objects, so that once converged a plan is a no-op.
 */
export async function buildSyntheticAccount(options: SyntheticAccountOptions): Promise<SyntheticAccount> {
  const { size, owner } = options;
  const seedManaged = options.seedManaged ?? true;
  const perFile = options.entriesPerFile ?? 1000;
  const routesPerEdge = size.routesPerEdge ?? 2;
  const pems = await Promise.all(
    ['corp-root.pem', 'partner-ca.pem'].map((name) =>
      readFile(join(REPO_ROOT, 'test', 'fixtures', 'certs', name), 'utf8'),
    ),
  );
  const marker = (name: string): string => encodeMetadata(undefined, { owner, name });
  const files = new Map<string, string>();
  const manifest = (collection: string, entries: [string, unknown][], path: string): void => {
    if (entries.length === 0) return;
    files.set(path, stringify({ version: 1, [collection]: Object.fromEntries(entries) }, { lineWidth: 0 }));
  };

  const rules = Array.from({ length: size.rules }, (_, index) => ({
    name: `rule-${index}`,
    spec: {
      ip_policy_id: policyOf(index),
      cidr: options.overlappingCidrs === true ? overlappingRuleCidr(index) : ruleCidr(index),
      action: actionOf(index),
      description: `synthetic rule ${index}`,
    },
  }));
  for (const [index, part] of chunk(rules, perFile).entries()) {
    manifest(
      'ip_policy_rules',
      part.map((rule) => [rule.name, rule.spec]),
      `ip-policy-rules-${index}.yaml`,
    );
  }
  const addrs = Array.from({ length: size.reservedAddrs }, (_, index) => ({
    name: `addr-${index}`,
    spec: { description: `synthetic address ${index}`, region: REGIONS[index % REGIONS.length] },
  }));
  for (const [index, part] of chunk(addrs, perFile).entries()) {
    manifest(
      'reserved_addrs',
      part.map((addr) => [addr.name, addr.spec]),
      `reserved-addrs-${index}.yaml`,
    );
  }
  const cas = Array.from({ length: size.certificateAuthorities }, (_, index) => ({
    name: `ca-${index}`,
    pem: pems[index % pems.length] as string,
    file: index % 2 === 0 ? 'certs/corp-root.pem' : 'certs/partner-ca.pem',
  }));
  files.set('certs/corp-root.pem', pems[0] as string);
  files.set('certs/partner-ca.pem', pems[1] as string);
  files.set('secrets/oidc-client-secret.txt', `${SYNTHETIC_OIDC_SECRET}\n`);
  manifest(
    'certificate_authorities',
    cas.map((ca) => [ca.name, { ca_pem_file: ca.file, description: `synthetic CA ${ca.name}` }]),
    'certificate-authorities.yaml',
  );

  const caName = (index: number): string | undefined =>
    size.certificateAuthorities === 0 ? undefined : `ca-${index % size.certificateAuthorities}`;
  const httpsEdges = Array.from({ length: size.httpsEdges }, (_, index) => {
    const id = syntheticId('edghts_', 'BenchWeb', index);
    const routes = Array.from({ length: routesPerEdge }, (_, routeIndex) => ({
      id: syntheticId('edghtsrt_', `BenchRt${routeIndex}x`, index),
      match_type: 'path_prefix',
      match: `/r${routeIndex}`,
    }));
    const ca = caName(index);
    return { name: `web-${index}`, id, hostports: [`web-${index}.example.com:443`], routes, ca };
  });
  manifest(
    'https_edges',
    httpsEdges.map((edge) => [
      edge.name,
      {
        id: edge.id,
        hostports: edge.hostports,
        description: `synthetic edge ${edge.name}`,
        ...(edge.ca === undefined ? {} : { mutual_tls: { certificate_authorities: [edge.ca] } }),
        tls_termination: { min_version: '1.2' },
        routes: edge.routes.map((route) => ({
          match_type: route.match_type,
          match: route.match,
          oidc: {
            issuer: 'https://accounts.example.com',
            client_id: `${edge.name}${route.match.replace('/', '-')}`,
            client_secret: { file: 'secrets/oidc-client-secret.txt' },
            scopes: ['openid', 'email'],
          },
        })),
      },
    ]),
    'https-edges.yaml',
  );
  const tcpEdges = Array.from({ length: size.tcpEdges }, (_, index) => ({
    name: `tcp-${index}`,
    id: syntheticId('edgtcp_', 'BenchTcp', index),
  }));
  manifest(
    'tcp_edges',
    tcpEdges.map((edge, index) => [
      edge.name,
      { id: edge.id, ip_restriction: { ip_policies: [policyOf(index)] } },
    ]),
    'tcp-edges.yaml',
  );
  const tlsEdges = Array.from({ length: size.tlsEdges }, (_, index) => ({
    name: `tls-${index}`,
    id: syntheticId('edgtls_', 'BenchTls', index),
    ca: caName(index),
  }));
  manifest(
    'tls_edges',
    tlsEdges.map((edge) => [
      edge.name,
      {
        id: edge.id,
        ...(edge.ca === undefined ? {} : { mutual_tls: { certificate_authorities: [edge.ca] } }),
        tls_termination: { terminate_at: 'edge', min_version: '1.3' },
      },
    ]),
    'tls-edges.yaml',
  );

  const seed: EmulatorSeed = {
    ip_policies: POLICY_IDS.map((id) => ({ id, description: 'synthetic policy' })),
    ...(seedManaged
      ? {
          ip_policy_rules: rules.map((rule) => ({ ...rule.spec, metadata: marker(rule.name) })),
          reserved_addrs: addrs.map((addr) => ({ ...addr.spec, metadata: marker(addr.name) })),
          certificate_authorities: cas.map((ca) => ({
            ca_pem: ca.pem,
            description: `synthetic CA ${ca.name}`,
            metadata: marker(ca.name),
          })),
        }
      : {}),
    https_edges: httpsEdges.map((edge): SeedEntry & { routes: SeedEntry[] } => ({
      id: edge.id,
      hostports: edge.hostports,
      routes: edge.routes,
    })),
    tcp_edges: tcpEdges.map((edge) => ({ id: edge.id, hostports: [`${edge.name}.tcp.example:2000`] })),
    tls_edges: tlsEdges.map((edge) => ({ id: edge.id, hostports: [`${edge.name}.example.com:443`] })),
  };
  const entries =
    rules.length + addrs.length + cas.length + httpsEdges.length + tcpEdges.length + tlsEdges.length;
  return { seed, files, entries };
}

/** Writes the account's manifest, certificate and secret files under `dir`. */
export async function writeManifests(account: SyntheticAccount, dir: string): Promise<void> {
  for (const [path, text] of account.files) {
    const target = join(dir, path);
    await mkdir(join(target, '..'), { recursive: true });
    await writeFile(target, text);
  }
}
