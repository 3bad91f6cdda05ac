import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

/** docs/manifest.md: a manifest file may hold up to 5 MB. */
const FIVE_MB = 5 * 1024 * 1024;
/** What the generated files fill up to: the limit less room for the last entry. */
const FILL_TO = FIVE_MB - 4096;

const POLICY = 'ipp_2a8bAbCdEfGhIjKlMnOpQrStUvW';
const ENDPOINT = 'ec_2a8cAbCdEfGhIjKlMnOpQrStUvW';
const CA = 'ca_2a8dAbCdEfGhIjKlMnOpQrStUvW';
const PEM = readFileSync('test/fixtures/certs/corp-root.pem', 'utf8');

const address = (index: number): string => `${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

/** A manifest of `header` and as many entries as fit in FILL_TO bytes, plus `tail`. */
function fill(header: string, entry: (index: number) => string, tail = ''): string {
  const parts = [header];
  let length = header.length + tail.length;
  for (let index = 0; ; index += 1) {
    const next = entry(index);
    if (length + next.length > FILL_TO) break;
    parts.push(next);
    length += next.length;
  }
  parts.push(tail);
  return parts.join('');
}

/**
 * The shapes a large generated manifest takes: block lists of rules (the
 * case that was refused), each kind's usual form, and a file the fast path
 * leaves to the Composer (a tab in a comment).
 */
const SHAPES: readonly (readonly [string, () => string])[] = [
  [
    'rules, one field a line',
    () =>
      fill(
        'version: 1\nip_policy_rules:\n',
        (index) =>
          `  block-${index}:\n    ip_policy_id: ${POLICY}\n    cidr: 10.${address(index)}/32\n    action: deny\n`,
      ),
  ],
  [
    'rules, one flow mapping a line',
    () =>
      fill(
        'version: 1\nip_policy_rules:\n',
        (index) =>
          `  block-${index}: { ip_policy_id: ${POLICY}, cidr: 10.${address(index)}/32, action: deny }\n`,
      ),
  ],
  [
    'rules with descriptions and metadata',
    () =>
      fill(
        'version: 1\nip_policy_rules:\n',
        (index) =>
          `  block-${index}:\n    ip_policy_id: ${POLICY}\n    cidr: 10.${address(index)}/32\n    action: deny\n    description: "scanner ${index}"\n    metadata: { team: network, ticket: SEC-${index} }\n`,
      ),
  ],
  [
    'reserved addresses',
    () =>
      fill(
        'version: 1\nreserved_addrs:\n',
        (index) =>
          `  addr-${index}:\n    description: address ${index}\n    region: eu\n    endpoint_configuration_id: ${ENDPOINT}\n    metadata: { team: edge }\n`,
      ),
  ],
  [
    'certificate authorities with inline PEMs',
    () =>
      fill(
        'version: 1\ncertificate_authorities:\n',
        (index) =>
          `  ca-${index}:\n    description: CA ${index}\n    ca_pem: |\n${PEM.trimEnd()
            .split('\n')
            .map((line) => `      ${line}`)
            .join('\n')}\n`,
      ),
  ],
  [
    'HTTPS edges with OIDC routes',
    () =>
      fill(
        'version: 1\nhttps_edges:\n',
        (index) => `  web-${index}:
    hostports: [web-${index}.example.com:443, www-${index}.example.com:443]
    description: edge ${index}
    metadata: { team: web }
    mutual_tls: { certificate_authorities: [${CA}] }
    tls_termination: { min_version: "1.2" }
    routes:
      - match_type: path_prefix
        match: /app
        oidc:
          issuer: https://accounts.example.com
          client_id: edge-app-${index}
          client_secret: { env: OIDC_CLIENT_SECRET }
          scopes: [openid, email, profile]
`,
      ),
  ],
  [
    'rules with a tab in a comment (composed)',
    () =>
      fill(
        'version: 1\n#\tgenerated\nip_policy_rules:\n',
        (index) =>
          `  block-${index}:\n    ip_policy_id: ${POLICY}\n    cidr: 10.${address(index)}/32\n    action: deny\n`,
      ),
  ],
];

describe('a file the docs allow loads (5 MB in one file, as a process)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-limits-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(SHAPES)('validate accepts 5 MB of %s', async (_shape, text) => {
    await writeFile(join(dir, 'big.yaml'), text());

    const run = await runEdgesyncProcess(['validate', 'big.yaml'], { cwd: dir, limitMs: 170_000 });

    expect((await stat(join(dir, 'big.yaml'))).size).toBeGreaterThan(FIVE_MB - 8192);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^1 file valid \(\d+ entries\)\n$/);
    expect(run.code).toBe(0);
  });
});
