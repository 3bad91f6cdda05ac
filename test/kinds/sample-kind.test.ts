import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executePlan } from '../../src/apply/execute-plan.js';
import { startEmulator } from '../../src/emulator/server.js';
import { exportAccount } from '../../src/export/export-account.js';
import type { Kind } from '../../src/kinds/kind.js';
import { assembleManifestSchema } from '../../src/kinds/kind-schema.js';
import { readLiveState } from '../../src/kinds/read-live-state.js';
import { KINDS } from '../../src/kinds/registry.js';
import type { DesiredState } from '../../src/manifest/desired-state.js';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import type { Plan } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { silentLogger } from '../apply/hand-plan.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';
import { sampleKind } from '../support/sample-kind/index.js';
import { SAMPLE_REGISTRY } from '../support/sample-registry.js';
import { connectEmulator, type EmulatorConnection } from './emulator-connection.js';

const OWNER = 'sample-owner';
const HEADER = 'version: 1\n';

/**
 * The proof that a kind is one folder plus one registration line
 * (docs/architecture.md, "Adding a kind"): the sample kind, reserved domains,
 * lives in test/support/sample-kind/ (its Kind, schema part and emulator part)
 * and is registered by test/support/sample-registry.ts's one line. Validated,
 * planned, applied, exported and served by the emulator through the same code
 * as the built-in kinds, given that registry as a value.
 */
describe('a kind added as one folder and one registration line (test/support/sample-kind/)', () => {
  let conn: EmulatorConnection;
  let dir: string;

  beforeAll(async () => {
    conn = await connectEmulator({ pageSizeMax: 2 }, {}, SAMPLE_REGISTRY);
    dir = await mkdtemp(join(tmpdir(), 'edgesync-sample-kind-'));
  });

  afterAll(async () => {
    await conn?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function load(manifest: string, kinds?: readonly Kind[]) {
    await writeFile(join(dir, 'manifest.yaml'), `${HEADER}${manifest}`);
    return loadDesiredState(['.'], { ...(kinds === undefined ? BUILT_IN_LOAD : { kinds }), cwd: dir });
  }

  async function loaded(manifest: string): Promise<DesiredState> {
    const result = await load(manifest, SAMPLE_REGISTRY);
    if (!result.ok) throw new Error(result.errors.map((error) => error.format()).join('\n'));
    return result.value;
  }

  async function plan(desired: DesiredState): Promise<Plan> {
    const live = await readLiveState(conn.api, { kinds: SAMPLE_REGISTRY });
    return planChanges(desired, live, { owner: OWNER, kinds: SAMPLE_REGISTRY });
  }

  async function apply(planned: Plan): Promise<void> {
    const result = await executePlan(planned, { api: conn.api, logger: silentLogger });
    expect(result.failed).toBe(0);
  }

  const summaryOf = (planned: Plan): string[] =>
    planned.actions.map((action) => `${action.op} ${action.kind}.${action.name}`);

  async function ours() {
    const live = await readLiveState(conn.api, { kinds: [sampleKind] });
    return (live.objects[sampleKind.name] ?? []).filter((found) => found.marker?.owner === OWNER);
  }

  it('is one folder, and its registry is the built-in one plus one kind', async () => {
    const files = await readdir(new URL('../support/sample-kind/', import.meta.url));

    expect(files.sort()).toEqual(['emulator.ts', 'index.ts', 'schema.ts']);
    expect(SAMPLE_REGISTRY).toEqual([...KINDS, sampleKind]);
  });

  it('is not built in: the default registry refuses its collection, the default emulator has no such endpoint', async () => {
    const result = await load('reserved_domains:\n  app:\n    domain: app.example.com\n');
    const builtIn = await startEmulator();
    try {
      const response = await fetch(`${builtIn.url}/reserved_domains`, {
        headers: { Authorization: `Bearer ${builtIn.apiKey}`, 'Service-Version': '2' },
      });

      expect(response.status).toBe(404);
    } finally {
      await builtIn.close();
    }
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => `${error.code} ${error.line}:${error.column}`)).toEqual([
      'schema 2:1',
    ]);
  });

  it('validates against its own schema part and the shared entry rules, at file:line:col', async () => {
    const result = await load(
      'reserved_domains:\n  app:\n    domain: App.Example.com\n  rd_lookalike:\n    domain: x.example.com\n',
      SAMPLE_REGISTRY,
    );

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => `${error.code} ${error.line}:${error.column} ${error.path}`)).toEqual(
      ['schema 4:5 reserved_domains.app.domain', 'name_looks_like_id 5:3 reserved_domains.rd_lookalike'],
    );
    expect(result.errors[1]?.detail).toContain('looks like a reserved domain ID (prefix rd_)');
  });

  it('is planned and applied (create, update, replace, delete), planned again to nothing, and exported', async () => {
    const first = await loaded(
      'reserved_domains:\n  app:\n    domain: app.example.com\n    description: first\n',
    );

    const created = await plan(first);
    await apply(created);
    const again = await plan(first);

    expect(summaryOf(created)).toEqual(['create reserved_domains.app']);
    expect(summaryOf(again)).toEqual([]);

    const second = await loaded(
      'reserved_domains:\n  app:\n    domain: app.example.com\n    description: second\n    metadata: { team: edge }\n',
    );
    const updated = await plan(second);
    await apply(updated);

    expect(summaryOf(updated)).toEqual(['update reserved_domains.app']);
    expect(updated.actions[0]?.request).toMatchObject({ method: 'PATCH' });
    expect((await ours()).map((object) => [object.spec, object.marker])).toEqual([
      [
        { description: 'second', metadata: { team: 'edge' }, domain: 'app.example.com' },
        { owner: OWNER, name: 'app' },
      ],
    ]);

    const moved = await loaded(
      'reserved_domains:\n  app:\n    domain: www.example.com\n    description: second\n    metadata: { team: edge }\n',
    );
    const replaced = await plan(moved);
    await apply(replaced);

    expect(replaced.changes.map((change) => `${change.op} ${change.kind}.${change.name}`)).toEqual([
      'replace reserved_domains.app',
    ]);
    expect((await ours()).map((object) => object.spec.domain)).toEqual(['www.example.com']);
    expect(summaryOf(await plan(moved))).toEqual([]);

    const exported = await exportAccount(conn.api, {
      owner: OWNER,
      kinds: SAMPLE_REGISTRY,
      schema: assembleManifestSchema(SAMPLE_REGISTRY),
    });

    expect(exported.entries.map((entry) => [entry.kind, entry.name, entry.value])).toEqual([
      [
        'reserved_domains',
        'app',
        { domain: 'www.example.com', description: 'second', metadata: { team: 'edge' } },
      ],
    ]);

    const pruned = await plan(await loaded('reserved_domains: {}\n'));
    await apply(pruned);

    expect(summaryOf(pruned)).toEqual(['delete reserved_domains.app']);
    expect(await ours()).toEqual([]);
  });
});

describe("the sample kind's emulator part, served by its registry", () => {
  let conn: EmulatorConnection;

  beforeAll(async () => {
    conn = await connectEmulator(
      {
        pageSizeMax: 2,
        seed: {
          reserved_domains: [
            { id: 'rd_SeededDomain000000000000001', domain: 'seeded.example.com' },
            { domain: 'second.example.com', description: 'second' },
          ],
        },
      },
      {},
      SAMPLE_REGISTRY,
    );
  });

  afterAll(async () => {
    await conn?.close();
  });

  /** One request as a client of the family sends it; `path` may be an absolute `next_page_uri`. */
  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const url = path.startsWith('http') ? path : `${conn.emulator.url}${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${conn.emulator.apiKey}`,
        'Service-Version': '2',
        'Content-Type': 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
  }

  const failure = (answer: { status: number; body: Record<string, unknown> }) => [
    answer.status,
    answer.body.error_code,
  ];

  it('seeds, creates, lists newest first in pages, reads, updates and deletes like every collection', async () => {
    const created = await call('POST', '/reserved_domains', { domain: 'third.example.com', metadata: '{}' });
    const id = created.body.id as string;
    const firstPage = await call('GET', '/reserved_domains');
    const secondPage = await call('GET', firstPage.body.next_page_uri as string);
    const read = await call('GET', `/reserved_domains/${id}`);
    const patched = await call('PATCH', `/reserved_domains/${id}`, { description: 'third' });
    const deleted = await call('DELETE', `/reserved_domains/${id}`);
    const gone = await call('GET', `/reserved_domains/${id}`);

    expect(created.status).toBe(201);
    expect(id).toMatch(/^rd_[0-9A-Za-z]{27}$/);
    expect(created.body.uri).toBe(`${conn.emulator.url}/reserved_domains/${id}`);
    const listed = [firstPage, secondPage].flatMap((page) =>
      (page.body.reserved_domains as { domain: string }[]).map((item) => item.domain),
    );
    expect(listed).toEqual(['third.example.com', 'second.example.com', 'seeded.example.com']);
    expect(secondPage.body.next_page_uri).toBeNull();
    expect(read.body).toMatchObject({ id, domain: 'third.example.com', metadata: '{}' });
    expect(patched.body).toMatchObject({ id, domain: 'third.example.com', description: 'third' });
    expect(deleted.status).toBe(204);
    expect(failure(gone)).toEqual([404, 'not_found']);
  });

  it('refuses what its rules refuse: a second record of one domain, a field it does not take, a bad domain', async () => {
    const duplicate = await call('POST', '/reserved_domains', { domain: 'seeded.example.com' });
    const unknown = await call('POST', '/reserved_domains', { domain: 'x.example.com', region: 'eu' });
    const bad = await call('POST', '/reserved_domains', { domain: 'Not A Host' });
    const readOnly = await call('PATCH', '/reserved_domains/rd_SeededDomain000000000000001', {
      domain: 'other.example.com',
    });

    expect(failure(duplicate)).toEqual([400, 'conflict']);
    expect(failure(unknown)).toEqual([400, 'unknown_field']);
    expect(failure(bad)).toEqual([400, 'invalid_field']);
    expect(failure(readOnly)).toEqual([400, 'unknown_field']);
  });

  it('is a seed key only in its registry', async () => {
    await expect(startEmulator({ seed: { reserved_domains: [] } })).rejects.toThrow(
      /seed reserved_domains: unknown key; expected one of ip_policies, endpoint_configurations, certificate_authorities, ip_policy_rules, reserved_addrs, https_edges, tcp_edges, tls_edges$/,
    );
  });
});
