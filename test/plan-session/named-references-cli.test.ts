import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { emulatorStats } from '../apply/apply-harness.js';
import { ROOT, runCli, writes } from '../apply/cli-process.js';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

const SEED = join(ROOT, 'examples/emulator-seed.yaml');
const POLICY = 'ipp_OfficeVpnPolicy000000000001';
const BLOCK_LIST = 'ipp_BlockListPolicy000000000001';
const TCP_EDGE = 'edgtcp_SshEdge00000000000000000001';
const id = (prefix: string, word: string): string => `${prefix}${word.padEnd(27, '0')}`;
const MISSING_POLICY = id('ipp_', 'MissingPolicy');
const MISSING_CONFIG = id('ec_', 'MissingConfig');
const MISSING_CA = id('ca_', 'MissingAuthority');

/** Places below are those of this text, 1-based: a scalar's at its key, a list item's at the item. */
const MANIFEST = `version: 1
ip_policy_rules:
  office:
    ip_policy_id: ${MISSING_POLICY}
    cidr: 203.0.113.0/24
    action: allow
  office-too:
    ip_policy_id: ${POLICY}
    cidr: 198.51.100.0/24
    action: allow
reserved_addrs:
  bastion:
    description: bastion
    endpoint_configuration_id: ${MISSING_CONFIG}
https_edges:
  web:
    hostports: [web2.example.com:443]
    mutual_tls:
      certificate_authorities: [${MISSING_CA}]
tcp_edges:
  ssh:
    id: ${TCP_EDGE}
    ip_restriction:
      ip_policies: [${BLOCK_LIST}, ${MISSING_POLICY}]
`;

const VALID = `version: 1
ip_policy_rules:
  office:
    ip_policy_id: ${POLICY}
    cidr: 203.0.113.0/24
    action: allow
  block:
    ip_policy_id: ${BLOCK_LIST}
    cidr: 198.51.100.0/24
    action: deny
reserved_addrs:
  bastion:
    description: bastion
    endpoint_configuration_id: ec_BastionEndpointConfig000001
tcp_edges:
  ssh:
    id: ${TCP_EDGE}
    ip_restriction:
      ip_policies: [${BLOCK_LIST}, ${POLICY}]
`;

describe('references the account lacks are plan errors at their place', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function manifestOf(text: string): Promise<string> {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED) });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-references-'));
    const file = join(dir, 'account.yaml');
    await writeFile(file, text);
    return file;
  }

  it('plan names each missing IP policy, endpoint configuration and CA at file:line:col and exits 1', async () => {
    const file = await manifestOf(MANIFEST);
    const running = emulator as RunningEmulator;

    const plan = await runEdgesyncProcess(['plan', file], { emulator: running });

    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(
      `${file}:4:5: ip_policy_rules.office.ip_policy_id: IP policy ${MISSING_POLICY} does not exist in the account`,
    );
    expect(plan.stdout).toContain(
      `${file}:14:5: reserved_addrs.bastion.endpoint_configuration_id: endpoint configuration ${MISSING_CONFIG} does not exist in the account`,
    );
    expect(plan.stdout).toContain(
      `${file}:19:33: https_edges.web.mutual_tls.certificate_authorities: ${MISSING_CA} does not exist in the account`,
    );
    expect(plan.stdout).toContain(
      `${file}:24:54: tcp_edges.ssh.ip_restriction.ip_policies: IP policy ${MISSING_POLICY} does not exist in the account`,
    );
    expect(plan.stdout).not.toContain(`${POLICY} does not exist`);
    expect(plan.stdout).not.toContain(`${BLOCK_LIST} does not exist`);
  });

  it('apply writes nothing and exits 1; each named ID is read once, by GET', async () => {
    const file = await manifestOf(MANIFEST);
    const running = emulator as RunningEmulator;

    const apply = await runCli(running, ['--yes', file]);
    const { byRoute } = await emulatorStats({ emulator: running });

    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toContain(
      `IP policy ${MISSING_POLICY} does not exist in the account`,
    );
    expect(await writes(running)).toBe(0);
    expect(byRoute['GET /ip_policies/{id}']).toBe(3);
    expect(byRoute['GET /endpoint_configurations/{id}']).toBe(1);
  });

  it('passes when the account holds every reference, reading each named ID once', async () => {
    const file = await manifestOf(VALID);
    const running = emulator as RunningEmulator;

    const plan = await runEdgesyncProcess(['plan', '--detailed-exitcode', file], { emulator: running });
    const { byRoute } = await emulatorStats({ emulator: running });

    expect(plan.stdout).not.toContain('does not exist');
    expect(plan.code).toBe(2);
    expect(byRoute['GET /ip_policies/{id}']).toBe(2);
    expect(byRoute['GET /endpoint_configurations/{id}']).toBe(1);
  });
});
