import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { executePlan } from '../../src/apply/execute-plan.js';
import { type ExportAccountOptions, exportAccount } from '../../src/export/export-account.js';
import { renderManifests } from '../../src/export/render-manifests.js';
import { writeExport } from '../../src/export/write-export.js';
import type { KindName } from '../../src/kinds/kind-name.js';
import { readLiveState } from '../../src/kinds/read-live-state.js';
import { KINDS, kindByName } from '../../src/kinds/registry.js';
import type { DesiredState } from '../../src/manifest/desired-state.js';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';
import { readObjects } from '../support/read-objects.js';
import {
  IDS,
  MODULE_EDGE_IDS,
  OWNER,
  SECRETS,
  secretEnvironment,
  startVariedAccount,
  type VariedAccount,
} from './varied-account.js';

const SCHEMA_REF = '../schemas/manifest.schema.json';
const directories: string[] = [];

async function tempDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'edgesync-export-'));
  directories.push(directory);
  return directory;
}

async function exportTo(
  account: VariedAccount,
  options: Partial<ExportAccountOptions> & { readonly singleFile?: boolean } = {},
): Promise<string> {
  const directory = await tempDir();
  const exported = await exportAccount(account.api, {
    owner: OWNER,
    kinds: KINDS,
    idsByKind: MODULE_EDGE_IDS,
    ...options,
  });
  const manifests = renderManifests(exported, {
    layout: options.singleFile ? 'single-file' : 'per-kind',
    schemaRef: SCHEMA_REF,
    owner: OWNER,
    kinds: KINDS.map((kind) => kind.name),
  });
  await writeExport(directory, [...manifests, ...exported.sideFiles]);
  return directory;
}

async function load(directory: string): Promise<DesiredState> {
  const loaded = await loadDesiredState([directory], {
    ...BUILT_IN_LOAD,
    env: secretEnvironment(),
    owner: OWNER,
  });
  if (!loaded.ok) throw new Error(loaded.errors.map((error) => error.format()).join('\n'));
  return loaded.value;
}

async function planAgainst(account: VariedAccount, desired: DesiredState) {
  const live = await readLiveState(account.api, { kinds: KINDS, idsByKind: MODULE_EDGE_IDS });
  return planChanges(desired, live, { kinds: KINDS, owner: OWNER });
}

async function filesOf(directory: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(directory.length + 1), await readFile(path));
  }
  return files;
}

function entryNames(desired: DesiredState, kind: KindName): string[] {
  return desired.entries.filter((entry) => entry.kind === kind).map((entry) => entry.name);
}

afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

describe('export of a varied account (emulator, 2 items a page)', () => {
  let account: VariedAccount;

  beforeAll(async () => {
    account = await startVariedAccount();
  });

  afterAll(async () => {
    await account.close();
  });

  it('writes manifests the loader accepts, and planning them right after changes nothing', async () => {
    const directory = await exportTo(account);

    const desired = await load(directory);
    const plan = await planAgainst(account, desired);

    expect(plan.errors).toEqual([]);
    expect(plan.actions).toEqual([]);
    expect(plan.changes).toEqual([]);
    expect(entryNames(desired, 'ip_policy_rules')).toEqual(['ipv6-office', 'office-vpn', 'scanner']);
    expect(entryNames(desired, 'https_edges')).toEqual(['bare', 'web']);
    expect(entryNames(desired, 'certificate_authorities')).toEqual(['corp-root']);
    expect(entryNames(desired, 'tcp_edges')).toHaveLength(2);
    expect(entryNames(desired, 'tls_edges')).toHaveLength(1);
  });

  it('writes one file per kind with the modeline, the CA PEM beside them, and IDs and creation times in comments', async () => {
    const directory = await exportTo(account);

    const files = await filesOf(directory);
    const edges = files.get('https-edges.yaml')?.toString('utf8') ?? '';
    const live = await readLiveState(account.api, { kinds: KINDS, idsByKind: MODULE_EDGE_IDS });
    const web = readObjects(live, 'https_edges').find((object) => object.id === IDS.ownedEdge);

    expect([...files.keys()].sort()).toEqual([
      'certificate-authorities.yaml',
      'certs/corp-root.pem',
      'https-edges.yaml',
      'ip-policy-rules.yaml',
      'reserved-addrs.yaml',
      'tcp-edges.yaml',
      'tls-edges.yaml',
    ]);
    for (const [path, content] of files) {
      if (path.endsWith('.yaml'))
        expect(content.toString('utf8').split('\n')[0]).toBe(`# yaml-language-server: $schema=${SCHEMA_REF}`);
    }
    expect(files.get('certs/corp-root.pem')?.toString('utf8')).toBe(
      readObjects(live, 'certificate_authorities').find((object) => object.id === IDS.ownedCa)?.spec.ca_pem,
    );
    expect(web?.createdAt).toBeDefined();
    expect(edges).toContain(`  # ${IDS.ownedEdge}, created ${web?.createdAt}\n`);
    expect(edges).toContain('#   EDGESYNC_HTTPS_EDGES_WEB_APP_OIDC_CLIENT_SECRET');
    // Names of exported CAs, IDs of the others; the route selected by its match.
    expect(edges).toMatch(/certificate_authorities:\n\s+- ca_PartnerCa0+\n\s+- corp-root\n/);
    expect(edges).toMatch(/- match_type: path_prefix\n\s+match: \/app\n\s+oidc:\n/);
  });

  it('gives byte-identical files when the same account is exported twice', async () => {
    const first = await exportTo(account, { includeUnmanaged: true });
    const second = await exportTo(account, { includeUnmanaged: true });

    const a = await filesOf(first);
    const b = await filesOf(second);

    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [path, content] of a) expect(b.get(path)?.equals(content), path).toBe(true);
  });

  it.each([
    ['owned objects', {}],
    ['with unmanaged objects', { includeUnmanaged: true }],
    [
      'adopting, in one file with PEMs inline',
      { includeUnmanaged: true, adopt: true, singleFile: true, sideFiles: false },
    ],
  ])('never writes a secret value (%s)', async (_label, options) => {
    const directory = await exportTo(account, options);

    const files = await filesOf(directory);

    expect(files.size).toBeGreaterThan(0);
    for (const [path, content] of files) {
      for (const secret of Object.values(SECRETS)) {
        expect(content.includes(Buffer.from(secret, 'utf8')), `${secret} in ${path}`).toBe(false);
      }
    }
  });

  it('leaves out what another owner marks, and unmanaged objects unless asked', async () => {
    const owned = await load(await exportTo(account));
    const all = await load(await exportTo(account, { includeUnmanaged: true }));

    const adopted = all.entries.filter(
      (entry) => entry.id !== undefined && entry.kind !== 'tcp_edges' && entry.kind !== 'tls_edges',
    );

    expect(
      owned.entries.every(
        (entry) => entry.id === undefined || kindByName(entry.kind).ownership === 'modules-only',
      ),
    ).toBe(true);
    // Rules without a description are named after their CIDR, not their ID.
    expect(entryNames(all, 'ip_policy_rules')).toEqual([
      '10.0.0.0-8',
      '192.0.2.128-25',
      'cgnat',
      'ipv6-office',
      'legacy-range',
      'office-vpn',
      'private-net',
      'scanner',
    ]);
    expect(entryNames(all, 'https_edges')).toEqual(['admin', 'bare', 'web']);
    expect(entryNames(all, 'certificate_authorities')).toEqual(['corp-root', 'partner-ca']);
    expect(adopted.map((entry) => entry.kind).sort()).toEqual([
      'certificate_authorities',
      'https_edges',
      'ip_policy_rules',
      'ip_policy_rules',
      'ip_policy_rules',
      'ip_policy_rules',
      'ip_policy_rules',
      'reserved_addrs',
    ]);
  });

  it('exports only the kinds asked for, and names a missing module-only edge as an error', async () => {
    const exported = await exportAccount(account.api, {
      owner: OWNER,
      kinds: [kindByName('tls_edges')],
      idsByKind: { tls_edges: [IDS.tlsEdge] },
    });
    const missing = exportAccount(account.api, {
      owner: OWNER,
      kinds: [kindByName('tcp_edges')],
      idsByKind: { tcp_edges: ['edgtcp_Missing000000000000000000000'] },
    });

    expect(exported.entries.map((entry) => [entry.kind, entry.id])).toEqual([['tls_edges', IDS.tlsEdge]]);
    // Without the CA kind exported, references stay IDs.
    expect(exported.entries[0]?.value.mutual_tls).toEqual({ certificate_authorities: [IDS.ownedCa] });
    await expect(missing).rejects.toMatchObject({ code: 'export_edge_not_found' });
  });
});

describe('export --adopt of an account edgesync never touched', () => {
  let account: VariedAccount;

  afterEach(async () => {
    await account.close();
  });

  it('adopts everything on the first apply, writes the markers, and plans nothing afterwards', async () => {
    account = await startVariedAccount();
    const directory = await exportTo(account, { includeUnmanaged: true, adopt: true });
    const desired = await load(directory);
    const first = await planAgainst(account, desired);

    const result = await executePlan(first, { api: account.api, logger: pino({ level: 'silent' }) });
    const second = await planAgainst(account, desired);
    const live = await readLiveState(account.api, { kinds: KINDS, idsByKind: MODULE_EDGE_IDS });

    expect(first.errors).toEqual([]);
    expect(first.changes.length).toBeGreaterThan(0);
    expect(first.changes.every((change) => change.op === 'adopt')).toBe(true);
    expect(result.failed).toBe(0);
    expect(second.errors).toEqual([]);
    expect(second.actions).toEqual([]);
    const markers = readObjects(live, 'ip_policy_rules').map((object) => object.marker?.owner ?? null);
    expect(markers.filter((owner) => owner === OWNER)).toHaveLength(8);
    expect(markers.filter((owner) => owner === 'team-b')).toHaveLength(1);
  });
});
