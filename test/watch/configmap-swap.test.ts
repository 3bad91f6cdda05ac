import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { useDaemonHarness } from './daemon-harness.js';
import { callService, listRules } from './daemon-process.js';
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
describe('edgesync watch on a ConfigMap volume updated by the kubelet (in process)', () => {
  const startDaemon = useDaemonHarness();
  const seed = { seed: { ip_policies: [{ id: POLICY }] } };

  it('applies a ..data swap, with a nested certs/ item, without a restart', async () => {
    const pem = await readFile(PEM, 'utf8');
    const daemon = await startDaemon({
      emulator: seed,
      prepare: (dir) =>
        writeConfigMapVolume(
          join(dir, 'manifests'),
          new Map([
            ['ip-policy-rules.yaml', rules('203.0.113.0/24', 'first version')],
            ['certificate-authorities.yaml', CERTIFICATE_AUTHORITIES],
            ['certs/corp-root.pem', pem],
          ]),
        ),
    });
    const mount = join(daemon.dir, 'manifests');
    const emulator = daemon.emulator;
    await daemon.record(1);
    expect((await listRules(emulator)).find((rule) => rule.cidr === '203.0.113.0/24')).toBeDefined();
    expect((await listCertificateAuthorities(emulator))[0]).toBeDefined();

    await daemon.change(
      () =>
        writeConfigMapVolume(
          mount,
          new Map([
            ['ip-policy-rules.yaml', rules('198.51.100.0/24', 'second version')],
            [
              'certificate-authorities.yaml',
              CERTIFICATE_AUTHORITIES.replace('nested ConfigMap item', 'second version'),
            ],
            ['certs/corp-root.pem', pem],
          ]),
        ),
      async () => (await listRules(emulator)).some((rule) => rule.cidr === '198.51.100.0/24'),
    );
    const updated = (await listRules(emulator)).find((rule) => rule.cidr === '198.51.100.0/24');
    const authority = (await listCertificateAuthorities(emulator)).find((ca) =>
      ca.description?.includes('second version'),
    );

    expect(updated?.description).toBe('second version');
    expect((await listRules(emulator)).map((rule) => rule.cidr)).toEqual(['198.51.100.0/24']);
    expect(JSON.parse(authority?.metadata ?? '{}')).toEqual({
      edgesync: { name: 'corp-root', owner: 'default' },
    });
    // The same daemon, no restart: the swap reached it as a file change.
    expect(daemon.records.at(-1)?.lastReconcile).toMatchObject({ trigger: 'change', result: 'applied' });
  });

  it('keeps following after several swaps, each old version deleted', async () => {
    const daemon = await startDaemon({
      emulator: seed,
      prepare: (dir) =>
        writeConfigMapVolume(
          join(dir, 'manifests'),
          new Map([['rules.yaml', rules('192.0.2.0/24', 'version 0')]]),
        ),
    });
    const mount = join(daemon.dir, 'manifests');
    const emulator = daemon.emulator;
    await daemon.record(1);
    expect((await listRules(emulator)).map((rule) => rule.description)).toEqual(['version 0']);

    for (const version of [1, 2, 3]) {
      await daemon.change(
        () =>
          writeConfigMapVolume(mount, new Map([['rules.yaml', rules('192.0.2.0/24', `version ${version}`)]])),
        async () => (await listRules(emulator)).some((rule) => rule.description === `version ${version}`),
      );
    }

    expect((await listRules(emulator)).map((rule) => rule.description)).toEqual(['version 3']);
  });
});
