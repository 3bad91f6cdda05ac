import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BUILT_CLI } from '../support/built-cli.js';
import { runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';
import {
  IDS,
  OWNER,
  SECRETS,
  secretEnvironment,
  startVariedAccount,
  type VariedAccount,
} from './varied-account.js';

const CLI = BUILT_CLI;

/** edgesync as a process: for exit codes and the streams. */
const edgesync = (args: readonly string[], env: Record<string, string> = {}) =>
  runEdgesyncProcess(args, { env });
/** In this process: for what export decides and prints. */
const edgesyncHere = (args: readonly string[], env: Record<string, string> = {}) =>
  runEdgesyncInProcess(args, { env });

describe('edgesync export (as a process)', () => {
  let account: VariedAccount;
  let directory: string;
  let connection: Record<string, string>;
  const edgeFlags = ['--tcp-edge', IDS.tcpEdge, '--tls-edge', IDS.tlsEdge];

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npx tsc -p ." first`);
    account = await startVariedAccount();
    directory = await mkdtemp(join(tmpdir(), 'edgesync-export-cli-'));
    connection = { EDGE_API_URL: account.emulator.url, EDGE_API_KEY: account.emulator.apiKey };
  });

  afterAll(async () => {
    await account.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('writes --out DIR, which plans to no changes, and says what it left out', async () => {
    const out = join(directory, 'manifests');

    const exported = await edgesync(['export', '--owner', OWNER, '--out', out, ...edgeFlags], connection);
    const planned = await edgesync(['plan', '--owner', OWNER, '--detailed-exitcode', out], {
      ...connection,
      ...secretEnvironment(),
    });

    expect(exported.stderr).toContain(
      'left out 8 unmanaged (--include-unmanaged exports them), 2 owned by other owners',
    );
    expect(exported.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual([
      'certificate-authorities.yaml',
      'certs',
      'https-edges.yaml',
      'ip-policy-rules.yaml',
      'reserved-addrs.yaml',
      'tcp-edges.yaml',
      'tls-edges.yaml',
    ]);
    // Nothing but the note on what was read: no warning.
    expect(planned.stderr).toBe(
      `read ${out} (node_modules and hidden directories such as .git are skipped)\n`,
    );
    expect(planned.code).toBe(0);
  });

  it('prints one manifest on stdout, CA PEMs inline and secrets as env references', async () => {
    const result = await edgesyncHere(
      ['export', '--owner', OWNER, '--include-unmanaged', '--kinds', 'certificate_authorities,https_edges'],
      connection,
    );

    const manifest = parse(result.stdout) as Record<string, Record<string, Record<string, unknown>>>;

    expect(result.code).toBe(0);
    expect(Object.keys(manifest)).toEqual(['version', 'certificate_authorities', 'https_edges']);
    expect(manifest.certificate_authorities?.['partner-ca']?.ca_pem).toContain('-----BEGIN CERTIFICATE-----');
    expect(manifest.https_edges?.admin?.id).toBe(IDS.unmanagedEdge);
    for (const secret of Object.values(SECRETS)) expect(result.stdout).not.toContain(secret);
    expect(result.stdout).toContain('EDGESYNC_HTTPS_EDGES_ADMIN_OIDC_CLIENT_SECRET');
  });

  it('refuses to overwrite a file it did not write (exit 1), and overwrites it with --force', async () => {
    const out = join(directory, 'hand-written');
    await edgesyncHere(['export', '--owner', OWNER, '--out', out, '--single-file'], connection);
    await writeFile(join(out, 'manifest.yaml'), 'version: 1\n');

    const refused = await edgesync(['export', '--owner', OWNER, '--out', out, '--single-file'], connection);
    const forced = await edgesync(
      ['export', '--owner', OWNER, '--out', out, '--single-file', '--force'],
      connection,
    );

    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('was not written by edgesync export');
    expect(forced.code).toBe(0);
    expect(await readFile(join(out, 'manifest.yaml'), 'utf8')).toContain('ip_policy_rules:');
  });

  it('rejects an ID of the wrong kind and an unknown kind before reading anything', async () => {
    const wrongId = await edgesyncHere(['export', '--tcp-edge', IDS.tlsEdge], connection);
    const wrongKind = await edgesyncHere(['export', '--kinds', 'ip_policies'], connection);

    expect(wrongId.code).toBe(1);
    expect(wrongId.stderr).toContain('--tcp-edge: expected an ID starting with edgtcp_');
    expect(wrongKind.code).toBe(1);
    expect(wrongKind.stderr).toContain('--kinds: expected some of');
  });
});
