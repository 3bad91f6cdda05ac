import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GENERATED_MARK } from '../../src/export/render-manifests.js';
import { runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';
import { OWNER, startVariedAccount, type VariedAccount } from './varied-account.js';

/**
 * What a person who can write into the output directory (a shared checkout,
 * a CI workspace) can plant there must not make an export write or remove
 * anything outside it: links at the temporary names, a link in place of
 * `certs/`, and a manifest that looks generated and names a PEM file
 * through a linked directory.
 */
describe('export stays inside --out (as a process)', () => {
  let account: VariedAccount;
  let connection: Record<string, string>;
  let directory: string;
  let out: string;
  let outside: string;

  beforeAll(async () => {
    account = await startVariedAccount();
    connection = { EDGE_API_URL: account.emulator.url, EDGE_API_KEY: account.emulator.apiKey };
  });

  afterAll(async () => {
    await account.close();
  });

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'edgesync-export-boundary-'));
    out = join(directory, 'out');
    outside = join(directory, 'outside');
    await mkdir(out);
    await mkdir(outside);
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  /** Every file under `path`, with its content: what must not change. */
  async function snapshot(path: string): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    for (const name of (await readdir(path, { recursive: true })).sort()) {
      const full = join(path, name);
      try {
        files[name] = readFileSync(full, 'utf8');
      } catch {
        files[name] = '(directory)';
      }
    }
    return files;
  }

  it('writes through no link planted at a temporary name of a process it can guess', async () => {
    await writeFile(join(outside, 'victim.txt'), 'precious\n');
    // Process IDs are handed out in order: links for the next ones cover the export's own.
    const lastPid = existsSync('/proc/sys/kernel/ns_last_pid')
      ? Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'))
      : process.pid;
    for (let pid = lastPid + 1; pid <= lastPid + 1500; pid += 1) {
      await symlink(join(outside, 'victim.txt'), join(out, `.ip-policy-rules.yaml.${pid}.tmp`));
    }

    const exported = await runEdgesyncProcess(
      ['export', '--owner', OWNER, '--kinds', 'ip_policy_rules', '--out', out],
      { env: connection },
    );

    expect(exported.stderr).toContain('Wrote ip-policy-rules.yaml');
    expect(exported.code).toBe(0);
    expect(await readFile(join(outside, 'victim.txt'), 'utf8')).toBe('precious\n');
    expect(await readFile(join(out, 'ip-policy-rules.yaml'), 'utf8')).toContain('office-vpn:');
  }, 60_000);

  it('writes through no link planted at the temporary name of this very process', async () => {
    await writeFile(join(outside, 'victim.txt'), 'precious\n');
    await symlink(join(outside, 'victim.txt'), join(out, `.ip-policy-rules.yaml.${process.pid}.tmp`));

    const exported = await runEdgesyncInProcess(
      ['export', '--owner', OWNER, '--kinds', 'ip_policy_rules', '--out', out],
      { env: connection },
    );

    expect(exported.code).toBe(0);
    expect(await readFile(join(outside, 'victim.txt'), 'utf8')).toBe('precious\n');
  });

  it('refuses to write PEM files into a certs/ that links outside, naming it, and writes nothing', async () => {
    await symlink(outside, join(out, 'certs'));

    const exported = await runEdgesyncProcess(
      ['export', '--owner', OWNER, '--kinds', 'certificate_authorities', '--out', out],
      { env: connection },
    );

    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain(
      `${join(out, 'certs')} is a symbolic link; export writes and removes files only inside --out and follows no link`,
    );
    expect(await readdir(outside)).toEqual([]);
    expect(await readdir(out)).toEqual(['certs']);
  });

  it('refuses to remove a PEM file that a generated-looking manifest names through a linked directory', async () => {
    await writeFile(join(outside, 'victim.pem'), 'precious\n');
    await symlink(outside, join(out, 'linked'));
    // Looks like an earlier export's file of a CA now gone: today's export would remove it and its PEM.
    await writeFile(
      join(out, 'old-cas.yaml'),
      `# yaml-language-server: $schema=x\n#\n${GENERATED_MARK} from the live account.\nversion: 1\ncertificate_authorities:\n  gone-ca:\n    ca_pem_file: linked/victim.pem\n`,
    );
    const before = await snapshot(out);

    const exported = await runEdgesyncProcess(
      ['export', '--owner', OWNER, '--kinds', 'certificate_authorities', '--out', out],
      { env: connection },
    );

    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain(`${join(out, 'linked')} is a symbolic link`);
    expect(await readFile(join(outside, 'victim.pem'), 'utf8')).toBe('precious\n');
    expect(await snapshot(out)).toEqual(before);
  });
});
