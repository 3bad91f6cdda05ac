import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMULATOR_VARIANTS, type EmulatorVariants } from '../../src/emulator/emulator-variants.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import type { CliOptions, CliRun } from '../support/edgesync-cli.js';

/**
 * edgesync against each answer the service family may give
 * where it documents none (src/emulator/emulator-variants.ts): the same
 * manifests reach the same account and the same empty plan whichever answer
 * a GET or DELETE of an unset module gets, whatever a 404's body holds,
 * whether an unset description is answered as "" or left out, with the
 * family's error codes too. An empty list the service ignores is a variant
 * edgesync cannot converge on: the apply fails that write, once, and says why.
 */
const POLICY = 'ipp_VariantPolicy00000000000001';
const TCP = 'edgtcp_VariantTcp00000000000000001';
const TLS = 'edgtls_VariantTls00000000000000001';
const HOST = 'web.variant.example.com:443';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response JSON
type Answer = { status: number; body: any };

async function call(
  emulator: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${emulator.apiKey}`,
      'service-version': '2',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

const MODULES_SET = [
  'version: 1',
  'certificate_authorities:',
  '  corp:',
  '    ca_pem_file: corp.pem',
  'https_edges:',
  '  web:',
  `    hostports: [${HOST}]`,
  '    mutual_tls: { certificate_authorities: [corp] }',
  '    tls_termination: { min_version: "1.2" }',
  'tcp_edges:',
  '  ssh:',
  `    id: ${TCP}`,
  `    ip_restriction: { ip_policies: [${POLICY}] }`,
  'tls_edges:',
  '  db:',
  `    id: ${TLS}`,
  '    mutual_tls: { certificate_authorities: [corp] }',
  '    tls_termination: { terminate_at: edge, min_version: "1.3" }',
  '',
].join('\n');

/** The same account with one module of each edge removed. */
const MODULES_REMOVED = [
  'version: 1',
  'certificate_authorities:',
  '  corp:',
  '    ca_pem_file: corp.pem',
  'https_edges:',
  '  web:',
  `    hostports: [${HOST}]`,
  '    tls_termination: { min_version: "1.2" }',
  'tcp_edges:',
  '  ssh:',
  `    id: ${TCP}`,
  '    ip_restriction: null',
  'tls_edges:',
  '  db:',
  `    id: ${TLS}`,
  '    mutual_tls: null',
  '    tls_termination: { terminate_at: edge, min_version: "1.3" }',
  '',
].join('\n');

interface Setup {
  readonly label: string;
  readonly variants: Partial<EmulatorVariants>;
  readonly errorCodes?: 'family';
}

const SUPPORTED: readonly Setup[] = [
  { label: 'every default', variants: {} },
  { label: 'unset-module=null-ok', variants: { 'unset-module': 'null-ok' } },
  {
    label: 'unset-module=null-ok with the family error codes',
    variants: { 'unset-module': 'null-ok' },
    errorCodes: 'family',
  },
  { label: 'not-found-body=bare (404s without error_code)', variants: { 'not-found-body': 'bare' } },
  {
    label: 'the family error codes (no number, no error_code, where the family numbers none)',
    variants: {},
    errorCodes: 'family',
  },
  { label: 'unset-description=empty', variants: { 'unset-description': 'empty' } },
  {
    label: 'every other answer at once but empty-list=ignored, with the family error codes',
    variants: Object.fromEntries(
      Object.entries(EMULATOR_VARIANTS)
        .filter(([name]) => name !== 'empty-list')
        .map(([name, values]) => [name, values[1]]),
    ),
    errorCodes: 'family',
  },
];

/** How a suite runs edgesync: as a process, or in the test's process (test/support/edgesync-cli.ts). */
export type EdgesyncRunner = (args: readonly string[], options: CliOptions) => Promise<CliRun>;

/**
 * The scenarios, for a runner: test/emulator/ runs them in this process
 * (the suite's time budget), test/reliability/ as processes.
 */
export function describeVariantScenarios(title: string, run: EdgesyncRunner): void {
  describe(title, () => {
    let emulator: RunningEmulator | undefined;
    let scratch: string;

    beforeEach(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'edgesync-variants-'));
      await copyFile('test/fixtures/certs/corp-root.pem', join(scratch, 'corp.pem'));
    });
    afterEach(async () => {
      await emulator?.close();
      emulator = undefined;
      await rm(scratch, { recursive: true, force: true });
    });

    async function start(setup: Pick<Setup, 'variants' | 'errorCodes'>): Promise<RunningEmulator> {
      emulator = await startEmulator({
        variants: setup.variants,
        ...(setup.errorCodes === undefined ? {} : { errorCodes: setup.errorCodes }),
        seed: { ip_policies: [{ id: POLICY }], tcp_edges: [{ id: TCP }], tls_edges: [{ id: TLS }] },
      });
      return emulator;
    }

    const edgesync = (running: RunningEmulator, ...args: string[]) => run(args, { emulator: running });

    async function manifests(text: string): Promise<void> {
      await writeFile(join(scratch, 'edges.yaml'), text);
    }

    it.each(SUPPORTED)(
      '$label: plan, apply, an empty plan, a module deleted, a module drifted, an empty plan again',
      async (setup) => {
        const running = await start(setup);
        await manifests(MODULES_SET);

        const first = await edgesync(running, 'plan', '--detailed-exitcode', scratch);
        const applied = await edgesync(running, 'apply', '--yes', scratch);
        const settled = await edgesync(running, 'plan', '--detailed-exitcode', scratch);

        expect(first.code, first.stderr).toBe(2);
        expect(applied.code, applied.stdout + applied.stderr).toBe(0);
        expect(settled.code, settled.stdout + settled.stderr).toBe(0);

        await manifests(MODULES_REMOVED);
        const removing = await edgesync(running, 'apply', '--yes', scratch);
        const removed = await edgesync(running, 'plan', '--detailed-exitcode', scratch);
        const tcpModule = await call(running, 'GET', `/edges/tcp/${TCP}/ip_restriction`);
        const tlsModule = await call(running, 'GET', `/edges/tls/${TLS}/mutual_tls`);

        expect(removing.code, removing.stdout + removing.stderr).toBe(0);
        expect(removing.stdout).toMatch(/ip_restriction/);
        expect(removed.code, removed.stdout + removed.stderr).toBe(0);
        for (const module of [tcpModule, tlsModule]) {
          if (setup.variants['unset-module'] === 'null-ok')
            expect([module.status, module.body]).toEqual([200, null]);
          else expect(module.status).toBe(404);
        }

        // Drift: someone sets a removed module and changes a kept one behind edgesync's back.
        await call(running, 'PUT', `/edges/tcp/${TCP}/ip_restriction`, { ip_policy_ids: [POLICY] });
        await call(running, 'PUT', `/edges/tls/${TLS}/tls_termination`, {
          terminate_at: 'edge',
          min_version: '1.2',
        });
        const web = (await call(running, 'GET', '/edges/https')).body.https_edges[0];
        await call(running, 'PUT', `/edges/https/${web.id}/tls_termination`, { min_version: '1.3' });
        const drifted = await edgesync(running, 'plan', '--detailed-exitcode', scratch);
        const repaired = await edgesync(running, 'apply', '--yes', scratch);
        const final = await edgesync(running, 'plan', '--detailed-exitcode', scratch);
        const tcpAfter = await call(running, 'GET', `/edges/tcp/${TCP}/ip_restriction`);

        expect(drifted.code, drifted.stdout + drifted.stderr).toBe(2);
        expect(drifted.stdout).toMatch(/ip_restriction/);
        expect(drifted.stdout).toMatch(/tls_termination/);
        expect(repaired.code, repaired.stdout + repaired.stderr).toBe(0);
        expect(final.code, final.stdout + final.stderr).toBe(0);
        if (setup.variants['unset-module'] === 'null-ok')
          expect([tcpAfter.status, tcpAfter.body]).toEqual([200, null]);
        else expect(tcpAfter.status).toBe(404);
      },
      // Eight runs of edgesync: in this process a few seconds, but a loaded machine runs them slower.
      60_000,
    );

    it('empty-list=ignored: the apply fails the write the service ignored, says so, and does not loop', async () => {
      const running = await start({ variants: { 'empty-list': 'ignored' } });
      await manifests(['version: 1', 'https_edges:', '  web:', `    hostports: [${HOST}]`, ''].join('\n'));
      const created = await edgesync(running, 'apply', '--yes', scratch);
      await manifests(['version: 1', 'https_edges:', '  web:', '    hostports: []', ''].join('\n'));
      await call(running, 'DELETE', '/_emulator/stats');

      const cleared = await edgesync(running, 'apply', '--yes', scratch);
      const stats = (await call(running, 'GET', '/_emulator/stats')).body;
      const edge = (await call(running, 'GET', '/edges/https')).body.https_edges[0];

      expect(created.code, created.stderr).toBe(0);
      expect(cleared.code, cleared.stdout + cleared.stderr).not.toBe(0);
      expect(cleared.stdout + cleared.stderr).toMatch(
        /sent hostports as an empty list, and the service's answer still holds the old items/,
      );
      expect(stats.byRoute['PATCH /edges/https/{id}']).toBe(1);
      expect(edge.hostports).toEqual([HOST]);
    });
  });
}
