import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executePlan } from '../../src/apply/execute-plan.js';
import { exportAccount } from '../../src/export/export-account.js';
import type { Kind } from '../../src/kinds/kind.js';
import { assembleManifestSchema } from '../../src/kinds/kind-schema.js';
import { readLiveState } from '../../src/kinds/read-live-state.js';
import type { DesiredState } from '../../src/manifest/desired-state.js';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import type { Plan } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { silentLogger } from '../apply/hand-plan.js';
import { SAMPLE_REGISTRY, sampleKind } from '../support/sample-kind.js';
import { connectEmulator, type EmulatorConnection } from './emulator-connection.js';

const OWNER = 'sample-owner';
const HEADER = 'version: 1\n';

/**
 * Issue 17's proof that a kind is one module: the sample kind (one file and
 * its schema part under test/support/) is validated, planned, applied and
 * exported through the same code as the built-in kinds, by passing the
 * registry where the built-in one is the default.
 */
describe('a kind added in one file (test/support/sample-kind.ts)', () => {
  let conn: EmulatorConnection;
  let dir: string;

  beforeAll(async () => {
    conn = await connectEmulator();
    dir = await mkdtemp(join(tmpdir(), 'edgesync-sample-kind-'));
  });

  afterAll(async () => {
    await conn?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function load(manifest: string, kinds?: readonly Kind[]) {
    await writeFile(join(dir, 'manifest.yaml'), `${HEADER}${manifest}`);
    return loadDesiredState(['.'], { cwd: dir, ...(kinds === undefined ? {} : { kinds }) });
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

  const summaryOf = (planned: Plan): string[] =>
    planned.actions.map((action) => `${action.op} ${action.kind}.${action.name}`);

  it('is not built in: the default registry refuses its collection', async () => {
    const result = await load('endpoint_configurations:\n  edge-config:\n    description: x\n');

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => `${error.code} ${error.line}:${error.column}`)).toEqual([
      'schema 2:1',
    ]);
  });

  it('validates against its own schema part and the shared entry rules, at file:line:col', async () => {
    const result = await load(
      'endpoint_configurations:\n  edge-config:\n    colour: blue\n  ec_lookalike:\n    description: x\n',
      SAMPLE_REGISTRY,
    );

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => `${error.code} ${error.line}:${error.column} ${error.path}`)).toEqual(
      [
        'schema 4:5 endpoint_configurations.edge-config.colour',
        'name_looks_like_id 5:3 endpoint_configurations.ec_lookalike',
      ],
    );
    expect(result.errors[1]?.detail).toContain('looks like an endpoint configuration ID (prefix ec_)');
  });

  it('is planned, applied (create, update, delete) and planned again to nothing', async () => {
    const first = await loaded('endpoint_configurations:\n  edge-config:\n    description: first\n');

    const created = await plan(first);
    const createResult = await executePlan(created, { api: conn.api, logger: silentLogger });
    const again = await plan(first);

    expect(summaryOf(created)).toEqual(['create endpoint_configurations.edge-config']);
    expect(createResult.failed).toBe(0);
    expect(summaryOf(again)).toEqual([]);

    const second = await loaded(
      'endpoint_configurations:\n  edge-config:\n    description: second\n    metadata: { team: edge }\n',
    );
    const updated = await plan(second);
    await executePlan(updated, { api: conn.api, logger: silentLogger });
    const live = await readLiveState(conn.api, { kinds: [sampleKind] });
    const object = live.objects[sampleKind.name]?.find((found) => found.marker?.owner === OWNER);

    expect(summaryOf(updated)).toEqual(['update endpoint_configurations.edge-config']);
    expect(updated.actions[0]?.request).toMatchObject({ method: 'PATCH' });
    expect(object?.spec).toEqual({ description: 'second', metadata: { team: 'edge' } });
    expect(object?.marker).toEqual({ owner: OWNER, name: 'edge-config' });

    const exported = await exportAccount(conn.api, {
      owner: OWNER,
      kinds: SAMPLE_REGISTRY,
      schema: assembleManifestSchema(SAMPLE_REGISTRY),
    });

    expect(exported.entries.map((entry) => [entry.kind, entry.name, entry.value])).toEqual([
      ['endpoint_configurations', 'edge-config', { description: 'second', metadata: { team: 'edge' } }],
    ]);

    const emptied = await loaded('endpoint_configurations: {}\n');
    const pruned = await plan(emptied);
    await executePlan(pruned, { api: conn.api, logger: silentLogger });
    const afterPrune = await readLiveState(conn.api, { kinds: [sampleKind] });

    expect(summaryOf(pruned)).toEqual(['delete endpoint_configurations.edge-config']);
    expect(afterPrune.objects[sampleKind.name]?.some((found) => found.marker?.owner === OWNER)).toBe(false);
  });
});
