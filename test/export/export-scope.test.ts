import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { MANIFEST_SCHEMA_ID } from '../../src/kinds/kind-schema.js';
import { runEdgesyncInProcess, runEdgesyncProcess } from '../support/edgesync-cli.js';
import { IDS, OWNER, startVariedAccount, type VariedAccount } from './varied-account.js';

/** edgesync export in this process: what export writes is the subject here, not the process. */
const edgesync = (args: readonly string[], env: Record<string, string>) =>
  runEdgesyncInProcess(args, { env });
/** As a process: for the exit code of a refusal. */
const edgesyncProcess = (args: readonly string[], env: Record<string, string>) =>
  runEdgesyncProcess(args, { env });

/** Every file below `directory` with its text, by relative path. */
async function snapshot(directory: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of (await readdir(directory, { recursive: true })).sort()) {
    const text = await readFile(join(directory, path), 'utf8').catch(() => undefined);
    if (text !== undefined) files[path] = text;
  }
  return files;
}

/**
 * `export --out DIR` run again with a narrower scope changes only what it
 * read: files of kinds it did not read in full stay as they are, and an
 * entry is dropped only for an object that is truly gone.
 */
describe('edgesync export --out DIR, run again (as a process)', () => {
  let account: VariedAccount;
  let directory: string;
  let connection: Record<string, string>;
  const edgeFlags = ['--tcp-edge', IDS.tcpEdge, '--tls-edge', IDS.tlsEdge];

  beforeAll(async () => {
    account = await startVariedAccount();
    directory = await mkdtemp(join(tmpdir(), 'edgesync-export-scope-'));
    connection = { EDGE_API_URL: account.emulator.url, EDGE_API_KEY: account.emulator.apiKey };
  });

  afterAll(async () => {
    await account.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('leaves files of kinds outside --kinds, and edges not named again, exactly as they were', async () => {
    const out = join(directory, 'narrower');
    await edgesync(['export', '--owner', OWNER, '--out', out, ...edgeFlags], connection);
    const before = await snapshot(out);

    const onlyRules = await edgesync(
      ['export', '--owner', OWNER, '--out', out, '--kinds', 'ip_policy_rules'],
      connection,
    );
    const afterRules = await snapshot(out);
    const withoutEdges = await edgesync(['export', '--owner', OWNER, '--out', out], connection);
    const afterEdges = await snapshot(out);

    expect(Object.keys(before)).toContain('tcp-edges.yaml');
    expect(onlyRules.code, onlyRules.stderr).toBe(0);
    expect(onlyRules.stderr).not.toContain('Removed');
    expect(onlyRules.stderr).toContain('Left certificate-authorities.yaml');
    expect(afterRules).toEqual(before);
    expect(withoutEdges.code, withoutEdges.stderr).toBe(0);
    expect(withoutEdges.stderr).not.toContain('Removed');
    expect(afterEdges['tcp-edges.yaml']).toBe(before['tcp-edges.yaml']);
    expect(afterEdges['tls-edges.yaml']).toBe(before['tls-edges.yaml']);
    expect(afterEdges).toEqual(before);
  });

  it('refuses to drop entries of objects still in the account (exit 1), and drops them with --force', async () => {
    const out = join(directory, 'unmanaged');
    await edgesync(
      ['export', '--owner', OWNER, '--include-unmanaged', '--out', out, ...edgeFlags],
      connection,
    );
    const before = await snapshot(out);

    const refused = await edgesyncProcess(
      ['export', '--owner', OWNER, '--out', out, ...edgeFlags],
      connection,
    );
    const kept = await snapshot(out);
    const forced = await edgesync(
      ['export', '--owner', OWNER, '--out', out, '--force', ...edgeFlags],
      connection,
    );

    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/rewriting it would drop [a-z_]+\.\S+.*--force/);
    expect(kept).toEqual(before);
    expect(forced.code, forced.stderr).toBe(0);
  });

  it('drops an entry whose object is truly gone', async () => {
    const out = join(directory, 'gone');
    await edgesync(['export', '--owner', OWNER, '--out', out, ...edgeFlags], connection);
    const api = createApiClient({
      baseUrl: account.emulator.url,
      apiKey: account.emulator.apiKey,
      budget: new RequestBudget({ requests: 100_000, windowMs: 1000 }),
    });
    const rules: { id: string; metadata: string }[] = [];
    for await (const page of api.paginate<{ id: string; metadata: string }>(
      '/ip_policy_rules',
      'ip_policy_rules',
    ))
      rules.push(...page.items);
    const office = rules.find((rule) => String(rule.metadata ?? '').includes('"office-vpn"'));
    await api.request({ method: 'DELETE', path: `/ip_policy_rules/${office?.id}` });

    const again = await edgesync(['export', '--owner', OWNER, '--out', out, ...edgeFlags], connection);
    const text = await readFile(join(out, 'ip-policy-rules.yaml'), 'utf8');

    expect(again.code, again.stderr).toBe(0);
    expect(text).not.toContain('office-vpn:');
  });

  it("points the modeline at the schema's published $id, not into the install directory", async () => {
    const out = join(directory, 'modeline');

    await edgesync(['export', '--owner', OWNER, '--out', out], connection);
    const first = (await readFile(join(out, 'ip-policy-rules.yaml'), 'utf8')).split('\n')[0];

    expect(first).toBe(`# yaml-language-server: $schema=${MANIFEST_SCHEMA_ID}`);
    expect(MANIFEST_SCHEMA_ID).toMatch(/^https:\/\//);
  });
});
