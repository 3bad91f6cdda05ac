import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { BUILT_CLI } from '../support/built-cli.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';

/**
 * The family's rules (docs/emulator.md) that a manifest can express: `validate` refuses locally,
 * at file:line:col, what the service would refuse, and accepts what it accepts.
 */
const CA_PEM = readFileSync(new URL('../fixtures/certs/corp-root.pem', import.meta.url), 'utf8');
const PARTNER_PEM = readFileSync(new URL('../fixtures/certs/partner-ca.pem', import.meta.url), 'utf8');
const PRIVATE_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
/** A line of the key's body: what must never reach any output. */
const KEY_BODY = PRIVATE_KEY.split('\n')[1] ?? '';
const HEADER = 'version: 1\n';

const rule = (cidr: string): string =>
  `${HEADER}ip_policy_rules:\n  office:\n    ip_policy_id: ipp_A1\n    cidr: "${cidr}"\n    action: allow\n`;
const caFromFile = `${HEADER}certificate_authorities:\n  corp:\n    ca_pem_file: ca.pem\n`;
const tcpEdge = (module: string): string =>
  `${HEADER}tcp_edges:\n  db:\n    id: edgtcp_A1\n    ip_restriction:\n${module}`;
const oidcRoute = (field: string): string =>
  `${HEADER}https_edges:\n  web:\n    hostports: [web.example.com:443]\n    routes:\n      - match_type: path_prefix\n        match: /\n        oidc:\n          issuer: https://id.example.com\n          client_id: app\n          client_secret: s3\n${field}`;
const edge = (hostport: string): string =>
  `${HEADER}https_edges:\n  web:\n    hostports:\n      - "${hostport}"\n`;
const mutualTls = (module: string): string =>
  `${HEADER}tls_edges:\n  db:\n    id: edgtls_A1\n    mutual_tls:\n${module}`;

interface Row {
  readonly row: string;
  readonly manifest: string;
  readonly files?: Readonly<Record<string, string>>;
  /** `code line:column path`, or 'ok' when the service would accept it. */
  readonly expected: string;
}

const ROWS: readonly Row[] = [
  {
    row: 'cidr without a mask',
    manifest: rule('203.0.113.7'),
    expected: 'invalid_cidr 5:5 ip_policy_rules.office.cidr',
  },
  {
    row: 'IPv6 cidr without a mask',
    manifest: rule('2001:db8::1'),
    expected: 'invalid_cidr 5:5 ip_policy_rules.office.cidr',
  },
  { row: 'cidr with its mask, one address', manifest: rule('203.0.113.7/32'), expected: 'ok' },
  {
    row: 'ca_pem followed by a PRIVATE KEY block',
    manifest: caFromFile,
    files: { 'ca.pem': `${CA_PEM}${PRIVATE_KEY}` },
    expected: 'invalid_pem 4:5 certificate_authorities.corp.ca_pem_file',
  },
  {
    row: 'ca_pem that is a PRIVATE KEY block only',
    manifest: caFromFile,
    files: { 'ca.pem': PRIVATE_KEY },
    expected: 'invalid_pem 4:5 certificate_authorities.corp.ca_pem_file',
  },
  {
    row: 'ca_pem with text before the block',
    manifest: caFromFile,
    files: { 'ca.pem': `Bag Attributes\n    friendlyName: corp\n${CA_PEM}` },
    expected: 'invalid_pem 4:5 certificate_authorities.corp.ca_pem_file',
  },
  {
    row: 'ca_pem with text after the block',
    manifest: caFromFile,
    files: { 'ca.pem': `${CA_PEM}# the corporate root\n` },
    expected: 'invalid_pem 4:5 certificate_authorities.corp.ca_pem_file',
  },
  {
    row: 'ca_pem with a second CERTIFICATE block',
    manifest: caFromFile,
    files: { 'ca.pem': `${CA_PEM}${PARTNER_PEM}` },
    expected: 'invalid_pem 4:5 certificate_authorities.corp.ca_pem_file',
  },
  {
    row: 'ca_pem inline with a second block',
    manifest: `${HEADER}certificate_authorities:\n  corp:\n    ca_pem: |\n${`${CA_PEM}${PARTNER_PEM}`
      .trimEnd()
      .split('\n')
      .map((line) => `      ${line}`)
      .join('\n')}\n`,
    expected: 'invalid_pem 4:5 certificate_authorities.corp.ca_pem',
  },
  {
    row: 'ca_pem of one block with surrounding whitespace',
    manifest: caFromFile,
    files: { 'ca.pem': `\n${CA_PEM}\n\n` },
    expected: 'ok',
  },
  {
    row: 'a PEM over 64 KB',
    manifest: caFromFile,
    files: { 'ca.pem': `${CA_PEM}${' '.repeat(64 * 1024)}\n` },
    expected: 'invalid_pem 4:5 certificate_authorities.corp.ca_pem_file',
  },
  {
    row: 'ip_restriction with an empty policy list',
    manifest: tcpEdge('      ip_policies: []\n'),
    expected: 'schema 6:7 tcp_edges.db.ip_restriction.ip_policies',
  },
  {
    row: 'ip_restriction with no policy list',
    manifest: tcpEdge('      enabled: true\n'),
    expected: 'schema 5:5 tcp_edges.db.ip_restriction',
  },
  {
    row: 'OIDC issuer over 255 bytes',
    manifest: oidcRoute(`          inactivity_timeout: 60\n`).replace(
      'https://id.example.com',
      `https://id.example.com/${'é'.repeat(120)}`,
    ),
    expected: 'invalid_issuer 9:11 https_edges.web.routes[0].oidc.issuer',
  },
  {
    row: 'OIDC inactivity_timeout over one year',
    manifest: oidcRoute('          inactivity_timeout: 31536001\n'),
    expected: 'schema 12:11 https_edges.web.routes[0].oidc.inactivity_timeout',
  },
  {
    row: 'OIDC maximum_duration over one year',
    manifest: oidcRoute('          maximum_duration: 31536001\n'),
    expected: 'schema 12:11 https_edges.web.routes[0].oidc.maximum_duration',
  },
  {
    row: 'OIDC durations of exactly one year',
    manifest: oidcRoute('          inactivity_timeout: 31536000\n          maximum_duration: 31536000\n'),
    expected: 'ok',
  },
  {
    row: 'OIDC cookie_prefix with a hyphen',
    manifest: oidcRoute('          cookie_prefix: my-app\n'),
    expected: 'schema 12:11 https_edges.web.routes[0].oidc.cookie_prefix',
  },
  {
    row: 'OIDC cookie_prefix of letters, digits and periods',
    manifest: oidcRoute('          cookie_prefix: app2.\n'),
    expected: 'ok',
  },
  {
    row: 'hostport with port 0',
    manifest: edge('web.example.com:0'),
    expected: 'invalid_hostport 5:9 https_edges.web.hostports[0]',
  },
  {
    row: 'hostport with port 65536',
    manifest: edge('web.example.com:65536'),
    expected: 'invalid_hostport 5:9 https_edges.web.hostports[0]',
  },
  {
    row: 'hostport with an empty DNS label',
    manifest: edge('web..example.com:443'),
    expected: 'invalid_hostport 5:9 https_edges.web.hostports[0]',
  },
  {
    row: 'hostport with a DNS label over 63 characters',
    manifest: edge(`${'a'.repeat(64)}.example.com:443`),
    expected: 'invalid_hostport 5:9 https_edges.web.hostports[0]',
  },
  {
    row: 'hostport with port 65535',
    manifest: edge('web.example.com:65535'),
    expected: 'invalid_hostport 5:9 https_edges.web.hostports[0]',
  },
  {
    row: 'hostport with port 80',
    manifest: edge('web.example.com:80'),
    expected: 'invalid_hostport 5:9 https_edges.web.hostports[0]',
  },
  {
    row: 'hostport on an IPv4 address',
    manifest: edge('203.0.113.7:443'),
    expected: 'invalid_hostport 5:9 https_edges.web.hostports[0]',
  },
  {
    row: 'hostport on an IPv6 address',
    manifest: edge('[2001:db8::1]:443'),
    expected: 'schema 5:9 https_edges.web.hostports[0]',
  },
  {
    row: 'hostport without a port',
    manifest: edge('web.example.com'),
    expected: 'schema 5:9 https_edges.web.hostports[0]',
  },
  { row: 'hostport on port 443', manifest: edge('web.example.com:443'), expected: 'ok' },
  { row: 'hostport of a wildcard domain on port 443', manifest: edge('*.example.com:443'), expected: 'ok' },
  {
    row: 'reserved address description of 256 bytes',
    manifest: `${HEADER}reserved_addrs:\n  bastion:\n    description: "${'é'.repeat(128)}"\n`,
    expected: 'too_long 4:5 reserved_addrs.bastion.description',
  },
  {
    row: 'reserved address description of 255 bytes',
    manifest: `${HEADER}reserved_addrs:\n  bastion:\n    description: "${'é'.repeat(127)}d"\n`,
    expected: 'ok',
  },
  {
    row: 'a TCP edge id of a TLS edge',
    manifest: `${HEADER}tcp_edges:\n  db:\n    id: edgtls_A1\n`,
    expected: 'schema 4:5 tcp_edges.db.id',
  },
  {
    row: 'an IP policy ID where an endpoint configuration goes',
    manifest: `${HEADER}reserved_addrs:\n  bastion:\n    endpoint_configuration_id: ipp_A1\n`,
    expected: 'schema 4:5 reserved_addrs.bastion.endpoint_configuration_id',
  },
  {
    row: 'an endpoint configuration ID where an IP policy goes',
    manifest: tcpEdge('      ip_policies: [ec_A1]\n'),
    expected: 'schema 6:21 tcp_edges.db.ip_restriction.ip_policies[0]',
  },
  {
    row: 'an IP policy ID where a CA goes',
    manifest: mutualTls('      certificate_authorities: [ipp_A1]\n'),
    expected: 'wrong_reference_kind 6:33 tls_edges.db.mutual_tls.certificate_authorities[0]',
  },
  {
    row: 'a route id of an HTTPS edge',
    manifest: `${HEADER}https_edges:\n  web:\n    id: edghts_A1\n    routes:\n      - id: edghts_A2\n        oidc: null\n`,
    expected: 'schema 6:9 https_edges.web.routes[0].id',
  },
  {
    row: 'mutual_tls enabled: false without certificate_authorities',
    manifest: mutualTls('      enabled: false\n'),
    expected: 'ok',
  },
  {
    row: 'mutual_tls enabled without certificate_authorities',
    manifest: mutualTls('      enabled: true\n'),
    expected: 'schema 5:5 tls_edges.db.mutual_tls',
  },
];

describe('validate refuses locally what the service refuses', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'edgesync-service-rules-'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each(ROWS.map((row, index) => [row.row, row, index] as const))('%s', async (_label, row, index) => {
    const dir = join(root, String(index));
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    await writeFile(join(dir, 'manifest.yaml'), row.manifest);
    for (const [name, text] of Object.entries(row.files ?? {})) await writeFile(join(dir, name), text);

    const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir, env: {} });

    const found = result.ok
      ? 'ok'
      : result.errors.map((error) => `${error.code} ${error.line}:${error.column} ${error.path}`).join('\n');
    expect(found).toBe(row.expected);
    if (!result.ok) {
      for (const error of result.errors) {
        expect(error.file).toBe('manifest.yaml');
        expect(error.message).not.toContain(KEY_BODY);
      }
    }
  });
});

describe('a CA file that holds a private key (the CLI as a process)', () => {
  const run = promisify(execFile);
  let dir: string;
  let requests = 0;
  const server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(500).end();
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-ca-key-'));
    await writeFile(join(dir, 'cas.yaml'), caFromFile);
    await writeFile(join(dir, 'ca.pem'), `${CA_PEM}${PRIVATE_KEY}`);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  async function edgesync(args: readonly string[]): Promise<{ code: number; output: string }> {
    const { port } = server.address() as AddressInfo;
    const env = { PATH: process.env.PATH, EDGE_API_URL: `http://127.0.0.1:${port}`, EDGE_API_KEY: 'k' };
    try {
      const { stdout, stderr } = await run(process.execPath, [BUILT_CLI, ...args], { cwd: dir, env });
      return { code: 0, output: stdout + stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, output: failed.stdout + failed.stderr };
    }
  }

  it.each([
    ['validate', ['validate', '.'], 'cas.yaml:4:5'],
    ['validate --format json', ['validate', '--format', 'json', '.'], '"line": 4'],
    ['validate --format sarif', ['validate', '--format', 'sarif', '.'], '"startLine": 4'],
    ['plan', ['plan', '.'], 'cas.yaml:4:5'],
    ['apply --yes', ['apply', '--yes', '.'], 'cas.yaml:4:5'],
  ])('%s refuses it before any request and never prints the key', async (_label, args, location) => {
    const { code, output } = await edgesync(args);

    expect(code).toBe(1);
    expect(output).toContain('holds a private key');
    expect(output).toContain(location);
    expect(output).not.toContain(KEY_BODY);
    expect(output).not.toContain('PRIVATE KEY-----');
    expect(requests).toBe(0);
  });
});
