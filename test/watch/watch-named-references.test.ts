import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import {
  assertBuilt,
  type DaemonProcess,
  eventually,
  getStatus,
  listRules,
  startDaemon,
} from './daemon-process.js';

const POLICY = 'ipp_WatchRefsTestPolicy00000001';
const MISSING_POLICY = 'ipp_WatchRefsTestMissing0000001';

describe('the daemon checks named IP policies as plan does', () => {
  let emulator: RunningEmulator | undefined;
  let daemon: DaemonProcess | undefined;
  let dir: string | undefined;

  beforeAll(() => assertBuilt());
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator?.close();
    emulator = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('skips the entry naming a policy the account lacks, with its place, and applies the rest', async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-refs-'));
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    const file = join(manifests, 'rules.yaml');
    await writeFile(
      file,
      `version: 1\nip_policy_rules:\n  ghost:\n    ip_policy_id: ${MISSING_POLICY}\n    cidr: 198.51.100.0/24\n    action: deny\n  office:\n    ip_policy_id: ${POLICY}\n    cidr: 203.0.113.0/24\n    action: allow\n`,
    );
    const service = await startEmulator({ seed: { ip_policies: [{ id: POLICY, description: 'refs' }] } });
    emulator = service;
    const running = await startDaemon(service, [manifests, '--rate-limit', '6000/60s'], dir);
    daemon = running;

    const status = await eventually(async () => {
      const current = await getStatus(running);
      return current.last_reconcile?.result === 'partial' ? current : undefined;
    });
    const rules = await listRules(service);

    expect(rules.map((rule) => rule.cidr)).toEqual(['203.0.113.0/24']);
    expect(status.skipped_entries?.map((entry) => [entry.kind, entry.name, entry.reason])).toEqual([
      ['ip_policy_rules', 'ghost', 'reference_not_found'],
    ]);
    expect(status.skipped_entries?.[0]).toMatchObject({ file, line: 4 });
  });
});
