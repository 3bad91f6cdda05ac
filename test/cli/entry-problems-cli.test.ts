import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { ROOT, runEdgesyncInProcess } from '../support/edgesync-cli.js';

const POLICY = 'ipp_OfficeVpnPolicy000000000001';

/** Entries with more than one mistake each, and every line each must get at once. */
const CASES: readonly (readonly [string, string, readonly string[]])[] = [
  [
    'a bad CIDR and a bad action',
    `ip_policy_rules:\n  a:\n    ip_policy_id: ${POLICY}\n    cidr: 300.0.0.0/8\n    action: maybe\n`,
    [
      'ip_policy_rules.a.cidr: expected an IP or a CIDR range',
      'ip_policy_rules.a.action: expected one of "allow", "deny"',
    ],
  ],
  [
    'a missing action and a prefix too long',
    `ip_policy_rules:\n  b:\n    ip_policy_id: ${POLICY}\n    cidr: 10.0.0.0/33\n`,
    [
      'ip_policy_rules.b: missing required field "action"',
      'ip_policy_rules.b.cidr: prefix /33 is longer than 32 bits',
    ],
  ],
  [
    'a description too long and an unknown field',
    `ip_policy_rules:\n  c:\n    ip_policy_id: ${POLICY}\n    cidr: 10.0.0.0/8\n    action: deny\n    description: ${'x'.repeat(300)}\n    cdir: 10.0.0.0/8\n`,
    ['ip_policy_rules.c.cdir: unknown field "cdir"', 'ip_policy_rules.c.description: at most 255 characters'],
  ],
  [
    'a bad hostport beside a route the schema rejects',
    'https_edges:\n  web:\n    hostports: ["web.example.com:80"]\n    routes: [null]\n',
    ['https_edges.web.hostports[0]:', 'https_edges.web.routes[0]:'],
  ],
];

describe('validate and plan report every problem of an entry at once', () => {
  let dir: string;
  let emulator: RunningEmulator;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-entry-problems-'));
    emulator = await startEmulator({ seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')) });
  });
  afterAll(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(CASES)('%s', async (_, entries, expected) => {
    const file = join(dir, `${expected.length}-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, `version: 1\n${entries}`);

    const validate = await runEdgesyncInProcess(['validate', file]);
    const plan = await runEdgesyncInProcess(['plan', file], { emulator });

    for (const run of [validate, plan]) {
      expect(run.code).toBe(1);
      for (const line of expected) expect(run.stderr, run.stderr).toContain(line);
    }
  });

  it('says one mistake once: a CIDR of the wrong type is the schema’s line only', async () => {
    const file = join(dir, 'wrong-type.yaml');
    await writeFile(
      file,
      `version: 1\nip_policy_rules:\n  d:\n    ip_policy_id: ${POLICY}\n    cidr: [10.0.0.0/8]\n    action: maybe\n`,
    );

    const run = await runEdgesyncInProcess(['validate', file]);

    expect(run.stderr.split('\n').filter((line) => line.includes('ip_policy_rules.d.cidr'))).toHaveLength(1);
    expect(run.stderr).toContain('ip_policy_rules.d.action');
    expect(run.stderr).toContain('2 errors in 1 file');
  });
});
