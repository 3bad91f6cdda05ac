import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import { KINDS } from '../../src/kinds/registry.js';
import { compileManifestSchema } from '../../src/manifest/manifest-schema.js';
import { systemClock } from '../../src/watch/daemon-clock.js';
import type { DaemonStatusJson } from '../../src/watch/daemon-status.js';
import { runDaemon } from '../../src/watch/run-daemon.js';
import { WatchMetrics } from '../../src/watch/watch-metrics.js';
import { connectEmulator, type EmulatorConnection } from '../kinds/emulator-connection.js';
import { BUILT_IN_LOAD } from '../support/built-in-load.js';
import { eventually, rulesManifest } from './daemon-process.js';

const POLICY = 'ipp_DaemonRegistryTestPolicy001';
const OWNER = 'registry-tests';

describe('the daemon takes the registry of kinds as a value', () => {
  let connection: EmulatorConnection | undefined;
  let dir: string | undefined;
  let stop: (() => Promise<unknown>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
    await connection?.close();
    connection = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('reads, plans and applies only the kinds of the registry it is given', async () => {
    connection = await connectEmulator({
      seed: {
        ip_policies: [{ id: POLICY }],
        // Owned by the same owner and in no manifest: the full registry would prune it.
        reserved_addrs: [
          {
            description: 'outside the registry',
            metadata: encodeMetadata(undefined, { owner: OWNER, name: 'old' }),
          },
        ],
      },
    });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-daemon-registry-'));
    await mkdir(join(dir, 'manifests'));
    await writeFile(
      join(dir, 'manifests', 'rules.yaml'),
      rulesManifest(POLICY, { office: { cidr: '192.0.2.0/24' } }),
    );
    await connection.resetStats();
    const controller = new AbortController();
    let url: string | undefined;
    const running = runDaemon({
      kinds: KINDS.filter((kind) => kind.name === 'ip_policy_rules'),
      paths: ['manifests'],
      cwd: dir,
      mode: 'enforce',
      load: { ...BUILT_IN_LOAD, owner: OWNER, cwd: dir, env: {}, validator: compileManifestSchema() },
      plan: { kinds: KINDS, owner: OWNER },
      api: connection.api,
      budget: { requests: 1_000_000, windowMs: 60_000 },
      metrics: new WatchMetrics(),
      logger: pino({ level: 'silent' }),
      clock: systemClock(),
      random: () => 0.5,
      listen: { host: '127.0.0.1', port: 0 },
      intervalMs: 3_600_000,
      signal: controller.signal,
      onListening: (listening) => {
        url = listening;
      },
    });
    stop = async () => {
      controller.abort();
      await running;
    };

    const status = await eventually(async () => {
      if (url === undefined) return undefined;
      const current = (await (await fetch(`${url}/status`)).json()) as DaemonStatusJson;
      return current.last_reconcile?.result === 'applied' ? current : undefined;
    });
    const { byRoute } = await connection.stats();

    expect(status.last_plan?.changes).toEqual(['ip_policy_rules.office']);
    expect(status.live_cache?.kinds_to_read).toEqual([]);
    // The rules' kind is listed and written; the IP policy its entry names is read by ID (it is no kind of the
    // registry, and the plan checks that the account has it); no other kind is read.
    expect(Object.keys(byRoute).sort()).toEqual([
      'GET /ip_policies/{id}',
      'GET /ip_policy_rules',
      'POST /ip_policy_rules',
    ]);
  });
});
