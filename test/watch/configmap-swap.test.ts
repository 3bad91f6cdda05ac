import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  listRules,
  startDaemon,
} from './daemon-process.js';
import { writeConfigMapVolume } from './kubelet-volume.js';

const POLICY = 'ipp_ConfigMapSwapPolicy00000001';
const PEM = join(import.meta.dirname, '..', '..', 'examples', 'manifests', 'certs', 'corp-root.pem');

function rules(cidr: string, description: string): string {
  return `version: 1\nip_policy_rules:\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: ${cidr}\n    action: allow\n    description: ${description}\n`;
}

const CERTIFICATE_AUTHORITIES = `version: 1
certificate_authorities:
  corp-root:
    ca_pem_file: certs/corp-root.pem
    description: mounted from a nested ConfigMap item
`;

interface LiveCertificateAuthority {
  readonly description?: string;
  readonly metadata?: string;
}

async function listCertificateAuthorities(emulator: RunningEmulator): Promise<LiveCertificateAuthority[]> {
  const { body } = await callService(emulator, 'GET', '/certificate_authorities?limit=100');
  return (body as { certificate_authorities: LiveCertificateAuthority[] }).certificate_authorities;
}

/**
 * The daemon watching a ConfigMap volume that the kubelet updates in place:
 * each version in a timestamped directory, `..data` renamed atomically onto
 * a symlink to it, and every visible file or directory a symlink through
 * `..data` (test/watch/kubelet-volume.ts). No pod restart: the daemon itself
 * must notice the swap. A resync far away (1 h) leaves the watcher as the only
 * way the change can arrive within the test.
 */
describe('edgesync watch on a ConfigMap volume updated by the kubelet', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(() => {
    assertBuilt();
  });
  beforeEach(async () => {
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-configmap-swap-'));
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('applies a ..data swap, with a nested certs/ item, without a restart', async () => {
    const mount = join(dir, 'manifests');
    const pem = await readFile(PEM, 'utf8');
    await writeConfigMapVolume(
      mount,
      new Map([
        ['ip-policy-rules.yaml', rules('203.0.113.0/24', 'first version')],
        ['certificate-authorities.yaml', CERTIFICATE_AUTHORITIES],
        ['certs/corp-root.pem', pem],
      ]),
    );
    daemon = await startDaemon(emulator, [mount, '--interval', '1h'], dir);
    await eventually(async () => (await listRules(emulator)).find((rule) => rule.cidr === '203.0.113.0/24'));
    await eventually(async () => (await listCertificateAuthorities(emulator))[0]);

    await writeConfigMapVolume(
      mount,
      new Map([
        ['ip-policy-rules.yaml', rules('198.51.100.0/24', 'second version')],
        [
          'certificate-authorities.yaml',
          CERTIFICATE_AUTHORITIES.replace('nested ConfigMap item', 'second version'),
        ],
        ['certs/corp-root.pem', pem],
      ]),
    );
    const updated = await eventually(async () =>
      (await listRules(emulator)).find((rule) => rule.cidr === '198.51.100.0/24'),
    );
    const authority = await eventually(async () =>
      (await listCertificateAuthorities(emulator)).find((ca) => ca.description?.includes('second version')),
    );

    expect(updated.description).toBe('second version');
    expect((await listRules(emulator)).map((rule) => rule.cidr)).toEqual(['198.51.100.0/24']);
    expect(JSON.parse(authority.metadata ?? '{}')).toEqual({
      edgesync: { name: 'corp-root', owner: 'default' },
    });
    expect(daemon.child.exitCode).toBeNull();
  });

  it('keeps following after several swaps, each old version deleted', async () => {
    const mount = join(dir, 'manifests');
    await writeConfigMapVolume(mount, new Map([['rules.yaml', rules('192.0.2.0/24', 'version 0')]]));
    daemon = await startDaemon(emulator, [mount, '--interval', '1h'], dir);
    await eventually(async () =>
      (await listRules(emulator)).find((rule) => rule.description === 'version 0'),
    );

    for (const version of [1, 2, 3]) {
      await writeConfigMapVolume(
        mount,
        new Map([['rules.yaml', rules('192.0.2.0/24', `version ${version}`)]]),
      );
      await eventually(async () =>
        (await listRules(emulator)).find((rule) => rule.description === `version ${version}`),
      );
    }

    expect((await listRules(emulator)).map((rule) => rule.description)).toEqual(['version 3']);
  });
});
