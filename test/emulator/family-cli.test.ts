import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMULATOR_VARIANTS } from '../../src/emulator/emulator-variants.js';
import { KINDS } from '../../src/kinds/registry.js';
import { loadDesiredState } from '../../src/manifest/load-desired-state.js';
import { readAndPlan } from '../../src/plan-session/prepare-plan.js';
import { connectEmulator, type EmulatorConnection } from '../kinds/emulator-connection.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';
import {
  finished,
  runEdgesyncInProcess,
  runEdgesyncProcess,
  spawnEdgesync,
} from '../support/edgesync-cli.js';

/**
 * edgesync against the family's rules where the spec is silent, the CLI as
 * a process: it detaches an endpoint configuration with the family's DELETE
 * (never a PATCH with null), and a GET the service answers 400 for an ID is
 * no "gone": the read fails, naming the manifest line of that `id:`.
 */
const EC = 'ec_FamilyCliConfig000000000001';
const TCP = 'edgtcp_FamilyCliTcp000000000000001';

describe('edgesync against the family rules', () => {
  let conn: EmulatorConnection;
  let scratch: string;

  beforeEach(async () => {
    conn = await connectEmulator({
      seed: { endpoint_configurations: [{ id: EC }], tcp_edges: [{ id: TCP }] },
    });
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-family-cli-'));
  });
  afterEach(async () => {
    await conn.close();
    await rm(scratch, { recursive: true, force: true });
  });

  const edgesync = (...args: string[]) => runEdgesyncProcess(args, { emulator: conn.emulator });

  it('detaches an endpoint configuration with DELETE …/endpoint_configuration, the rest by a PATCH without it', async () => {
    const manifest = (description: string, extra: string) =>
      `version: 1\nreserved_addrs:\n  bastion:\n    description: ${description}\n${extra}`;
    await writeFile(join(scratch, 'addrs.yaml'), manifest('one', `    endpoint_configuration_id: ${EC}\n`));
    const attached = await edgesync('apply', '--yes', scratch);
    await writeFile(join(scratch, 'addrs.yaml'), manifest('two', ''));
    await conn.resetStats();

    // The plans run in this process (the suite's time budget); the applies, whose requests are the subject, as processes.
    const plan = await runEdgesyncInProcess(['plan', '--detailed-exitcode', scratch], {
      emulator: conn.emulator,
    });
    const detached = await edgesync('apply', '--yes', scratch);
    const stats = await conn.stats();
    const again = await runEdgesyncInProcess(['plan', '--detailed-exitcode', scratch], {
      emulator: conn.emulator,
    });
    const addrs = (
      await conn.api.request<{ reserved_addrs: { description: string; endpoint_configuration: unknown }[] }>({
        method: 'GET',
        path: '/reserved_addrs',
      })
    ).body.reserved_addrs;

    expect(attached.code, attached.stdout + attached.stderr).toBe(0);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/endpoint_configuration_id/);
    expect(detached.code, detached.stdout + detached.stderr).toBe(0);
    expect(stats.byRoute['DELETE /reserved_addrs/{id}/endpoint_configuration']).toBe(1);
    expect(stats.byRoute['PATCH /reserved_addrs/{id}']).toBe(1);
    expect(stats.byStatus['400']).toBeUndefined();
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(addrs.map((addr) => [addr.description, addr.endpoint_configuration])).toEqual([['two', null]]);
  }, 60_000);

  it('a saved plan that detaches, applied twice: the second run finds the DELETE already applied', async () => {
    const inProcess = (...args: string[]) => runEdgesyncInProcess(args, { emulator: conn.emulator });
    const manifest = (extra: string) =>
      `version: 1\nreserved_addrs:\n  bastion:\n    description: b\n${extra}`;
    await writeFile(join(scratch, 'addrs.yaml'), manifest(`    endpoint_configuration_id: ${EC}\n`));
    await inProcess('apply', '--yes', scratch);
    await writeFile(join(scratch, 'addrs.yaml'), manifest(''));
    const planFile = join(scratch, 'plan.json');

    const planned = await inProcess('plan', scratch, '--out', planFile);
    const first = await inProcess('apply', '--plan', planFile, '--yes', scratch);
    await conn.resetStats();
    const second = await inProcess('apply', '--plan', planFile, '--yes', scratch);
    const stats = await conn.stats();

    expect(planned.code, planned.stderr).toBe(0);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain('Already applied');
    expect(stats.byRoute['DELETE /reserved_addrs/{id}/endpoint_configuration']).toBeUndefined();
  });

  it('reads a 400 for an ID as a refused ID, not as a missing edge, and names the manifest line of its id', async () => {
    // validate refuses such an ID first; the manifest's ID is swapped after loading to reach the read.
    await writeFile(
      join(scratch, 'edges.yaml'),
      `version: 1\ntcp_edges:\n  ssh:\n    id: ${TCP}\n    ip_restriction: null\n`,
    );
    const loaded = await loadDesiredState([scratch], { env: {}, ...BUILT_IN_LOAD });
    if (!loaded.ok) throw new Error('the manifest should load');
    const refused = 'edgtcp_Not-An-Id';
    const desired = {
      ...loaded.value,
      // A proxy, not a copy: an entry reads some fields through getters of its class.
      entries: loaded.value.entries.map(
        (entry) =>
          new Proxy(entry, {
            get: (target, key) => (key === 'id' ? refused : Reflect.get(target, key, target)),
          }),
      ),
    };

    const reading = readAndPlan(desired, conn.api, { plan: { owner: 'family-cli', kinds: KINDS } });

    await expect(reading).rejects.toThrow(
      new RegExp(
        `edges\\.yaml:4:5: tcp_edges\\.ssh\\.id: the service refused the TCP edge ID ${refused} \\(HTTP 400: ${refused} is not an ID of the kind expected here: edgtcp_ followed by letters and digits\\)`,
      ),
    );
  });
});

describe('edgesync emulator --variant', () => {
  it('serves the variant named on the command line, and refuses one it does not know', async () => {
    const child = spawnEdgesync([
      'emulator',
      '--rate-limit',
      'off',
      '--api-key',
      'k',
      '--variant',
      'unset-module=null-ok,empty-list=ignored',
      '--error-codes',
      'family',
    ]);
    const run = finished(child);
    try {
      const url = await new Promise<string>((resolve) => {
        const check = () => {
          const line = run.output().stdout.split('\n')[0];
          if (line?.startsWith('http')) resolve(line);
          else setTimeout(check, 20);
        };
        check();
      });
      const headers = {
        authorization: 'Bearer k',
        'service-version': '2',
        'content-type': 'application/json',
      };
      const tcp = await fetch(`${url}/edges/tcp`, { method: 'POST', headers, body: '{}' });
      const id = ((await tcp.json()) as { id: string }).id;
      const unset = await fetch(`${url}/edges/tcp/${id}/ip_restriction`, { headers });
      const badId = await fetch(`${url}/edges/tcp/ipp_x/ip_restriction`, { headers });

      expect([unset.status, await unset.json()]).toEqual([200, null]);
      expect(((await badId.json()) as { error_code: string }).error_code).toBe('ERR_NGROK_227');
    } finally {
      child.kill('SIGTERM');
      await run;
    }

    const refused = await runEdgesyncProcess(['emulator', '--variant', 'unset-module=maybe'], {
      limitMs: 20_000,
    });

    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--variant.*unset-module must be not-found or null-ok \(found "maybe"\)/);
  });

  it('names every variant and its values, the default first, in --help', async () => {
    const help = await runEdgesyncProcess(['emulator', '--help'], { limitMs: 20_000 });

    const text = help.stdout.replace(/\s+/g, ' ');
    for (const [name, values] of Object.entries(EMULATOR_VARIANTS))
      expect(text).toContain(`${name}=${values.join('|')}`);
  });
});
