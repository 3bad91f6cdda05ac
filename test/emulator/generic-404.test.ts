import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';

/**
 * edgesync against a service whose every 404 says the same thing: module
 * edges still read as "module not set" versus "edge gone", by status alone.
 */
const POLICY = 'ipp_Generic404Policy00000000001';
const TCP = 'edgtcp_Generic404Tcp00000000000001';
const TLS = 'edgtls_Generic404Tls00000000000001';
const GONE = 'edgtcp_Generic404Gone0000000000001';

/** edgesync in this process against the emulator: how it reads 404s is the subject, not the process. */
const runCli = (emulator: RunningEmulator, args: readonly string[]) =>
  runEdgesyncInProcess(args, { emulator });

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response JSON
async function get(emulator: RunningEmulator, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${emulator.url}${path}`, {
    headers: { authorization: `Bearer ${emulator.apiKey}`, 'service-version': '2' },
  });
  return { status: response.status, body: await response.json() };
}

describe('edgesync against an emulator that answers every 404 with one code', () => {
  let emulator: RunningEmulator;
  let scratch: string;

  beforeEach(async () => {
    emulator = await startEmulator({
      notFoundCode: 'E404',
      seed: {
        ip_policies: [{ id: POLICY }],
        tcp_edges: [{ id: TCP }],
        tls_edges: [{ id: TLS, tls_termination: { terminate_at: 'edge', min_version: '1.2' } }],
      },
    });
    scratch = await mkdtemp(join(tmpdir(), 'edgesync-generic-404-'));
  });
  afterEach(async () => {
    await emulator.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('plans and applies modules of edges that have none or some, then plans no changes', async () => {
    await writeFile(
      join(scratch, 'edges.yaml'),
      [
        'version: 1',
        'tcp_edges:',
        '  ssh:',
        `    id: ${TCP}`,
        `    ip_restriction: { ip_policies: [${POLICY}] }`,
        'tls_edges:',
        '  db:',
        `    id: ${TLS}`,
        '    tls_termination: null',
        '    mutual_tls: null',
        '',
      ].join('\n'),
    );

    const apply = await runCli(emulator, ['apply', '--yes', scratch]);
    const again = await runCli(emulator, ['plan', '--detailed-exitcode', scratch]);
    const tcpModule = await get(emulator, `/edges/tcp/${TCP}/ip_restriction`);
    const termination = await get(emulator, `/edges/tls/${TLS}/tls_termination`);

    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/ip_restriction/);
    expect(apply.stdout).toMatch(/tls_termination/);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(tcpModule.body.ip_policies.map((ref: { id: string }) => ref.id)).toEqual([POLICY]);
    expect([termination.status, termination.body.error_code]).toEqual([404, 'E404']);
  });

  it('still reports an edge the account does not have', async () => {
    await writeFile(
      join(scratch, 'edges.yaml'),
      [
        'version: 1',
        'tcp_edges:',
        '  gone:',
        `    id: ${GONE}`,
        `    ip_restriction: { ip_policies: [${POLICY}] }`,
        '',
      ].join('\n'),
    );

    const plan = await runCli(emulator, ['plan', scratch]);

    expect(plan.code).toBe(1);
    expect(plan.stderr + plan.stdout).toContain(GONE);
  });
});
