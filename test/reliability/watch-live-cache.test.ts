import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorSeed } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import {
  assertBuilt,
  callService,
  type DaemonProcess,
  eventually,
  getStatus,
  type LiveRule,
  listRules,
  type RuleSpec,
  rulesManifest as rulesManifestOf,
  startDaemon,
} from '../watch/daemon-process.js';
import { parsePrometheusText, sampleSum } from '../watch/prometheus-text.js';

const POLICY = 'ipp_LiveCacheTestPolicy00000001';
const rulesManifest = (rules: Record<string, RuleSpec>): string => rulesManifestOf(POLICY, rules);
const OWNER = 'cache-tests';
/** The service's real budget, time-compressed 10x, enforced by the emulator and known to the daemon. */
const BUDGET = { requests: 120, windowMs: 6000 };
const RATE_LIMIT = '120/6s';

async function emulatorRoutes(emulator: RunningEmulator): Promise<Record<string, number>> {
  const { body } = await callService(emulator, 'GET', '/_emulator/stats');
  return (body as { byRoute: Record<string, number> }).byRoute;
}

function count(routes: Record<string, number>, test: (route: string) => boolean): number {
  return Object.entries(routes)
    .filter(([route]) => test(route))
    .reduce((sum, [, value]) => sum + value, 0);
}

const isWrite = (route: string): boolean => !route.startsWith('GET ');

function withCidr(rules: readonly LiveRule[], cidr: string): LiveRule[] {
  return rules.filter((rule) => rule.cidr === cidr);
}

async function allRules(emulator: RunningEmulator): Promise<LiveRule[]> {
  const rules: LiveRule[] = [];
  let uri: string | null = '/ip_policy_rules?limit=100';
  while (uri !== null) {
    const { body } = await callService(emulator, 'GET', uri.replace(emulator.url, ''));
    const page = body as { ip_policy_rules: LiveRule[]; next_page_uri: string | null };
    rules.push(...page.ip_policy_rules);
    uri = page.next_page_uri;
  }
  return rules;
}

// Here, not in `npm test`, because each case waits on the daemon's reads at a compressed budget (about
// 20 s in all). In `npm test`, test/watch/live-state-cache.test.ts holds the cache's rules (writes and
// reads by ID kept over an older full read, a kind dropped after a surprise, the gap a list page shows,
// a named edge found gone), test/watch/live-cache-writer.test.ts its one writer against the emulator over
// HTTP, test/watch/read-share.test.ts the background share, and test/watch/watch-server.test.ts its keys
// in /status.
describe('edgesync watch plans from its live-state cache (the daemon as a process, the emulator at a compressed budget)', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string;
  let manifests: string;
  let daemon: DaemonProcess | undefined;

  const start = async (
    seed: EmulatorSeed,
    args: readonly string[],
    pageSizeMax?: number,
  ): Promise<[RunningEmulator, DaemonProcess]> => {
    const service = await startEmulator({
      seed,
      rateLimit: BUDGET,
      ...(pageSizeMax === undefined ? {} : { pageSizeMax }),
    });
    emulator = service;
    daemon = await startDaemon(
      service,
      [manifests, '--owner', OWNER, '--rate-limit', RATE_LIMIT, ...args],
      dir,
    );
    return [service, daemon];
  };

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-watch-cache-'));
    manifests = join(dir, 'manifests');
    await mkdir(manifests);
  });
  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await emulator?.close();
    emulator = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('applies an edit while a background full read is still in progress', async () => {
    const file = join(manifests, 'rules.yaml');
    await writeFile(file, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'first' } }));
    // 1,000 rules of someone else: a full read is 10 pages of them, which 5% of 120/6s spreads over ~20 s.
    const others = Array.from({ length: 1000 }, (_, index) => ({
      ip_policy_id: POLICY,
      cidr: `10.9.${index >> 8}.${index & 255}/32`,
      action: 'allow',
    }));
    const [service, running] = await start(
      { ip_policies: [{ id: POLICY, description: 'cache tests' }], ip_policy_rules: others },
      ['--interval', '1s', '--read-share', '5%'],
    );
    const created = await eventually(async () => withCidr(await listRules(service), '203.0.113.0/24')[0]);
    const during = await eventually(async () => {
      const status = await getStatus(running);
      return status.live_cache?.full_read_in_progress_since ? status : undefined;
    });

    await writeFile(file, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'second' } }));
    await eventually(async () => {
      const rule = (await allRules(service)).find((candidate) => candidate.id === created.id);
      return rule?.description === 'second' ? true : undefined;
    });
    const after = await getStatus(running);

    expect(during.live_cache?.last_full_cycle).toBeNull();
    expect(after.live_cache?.last_full_cycle).toBeNull();
    expect(after.live_cache?.full_read_in_progress_since).toBe(
      during.live_cache?.full_read_in_progress_since,
    );
    expect(after.live_cache?.requests_by_purpose.targeted_read).toBeGreaterThanOrEqual(1);
    expect(after.live_cache?.read_share).toBe(0.05);
  });

  it('re-creates a rule deleted behind its back within one full cycle: the next listing shows the gap on its page', async () => {
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    // 100 rules of someone else, 10 a page, then ours (the newest, so on the first page): a listing of 11 pages.
    const others = Array.from({ length: 100 }, (_, index) => ({
      ip_policy_id: POLICY,
      cidr: `10.9.0.${index}/32`,
      action: 'allow',
    }));
    const ours = {
      ip_policy_id: POLICY,
      cidr: '203.0.113.0/24',
      action: 'allow',
      metadata: encodeMetadata(undefined, { owner: OWNER, name: 'office' }),
    };
    // 25% of 120/6s is 5 requests a second: a cycle (11 pages and one of each other listed kind) takes about
    // 3 s, so the ~2.5 cycles this test waits through leave room on a loaded machine; at 10% they took 20 s.
    const [service, running] = await start(
      { ip_policies: [{ id: POLICY, description: 'cache tests' }], ip_policy_rules: [...others, ours] },
      ['--interval', '1s', '--read-share', '25%'],
      10,
    );
    const listPages = async (): Promise<number> =>
      count(await emulatorRoutes(service), (route) => route === 'GET /ip_policy_rules');
    const firstCycle = await eventually(
      async () => (await getStatus(running)).live_cache?.last_full_cycle?.finished_at ?? undefined,
      60_000,
    );
    // Delete it once the cycle in progress has read the first page: that cycle lists it still.
    const pagesAtFirstCycle = await listPages();
    await eventually(async () => ((await listPages()) >= pagesAtFirstCycle + 2 ? true : undefined), 60_000);
    const [rule] = withCidr(await listRules(service), '203.0.113.0/24');
    await callService(service, 'DELETE', `/ip_policy_rules/${rule?.id}`);

    const cyclesFinished = new Set<string>();
    const corrected = await eventually(async () => {
      const status = await getStatus(running);
      const finished = status.live_cache?.last_full_cycle?.finished_at;
      if (finished !== undefined && finished !== firstCycle) cyclesFinished.add(finished);
      return status.last_plan?.changes.includes('ip_policy_rules.office') &&
        status.last_reconcile?.result === 'applied'
        ? status
        : undefined;
    }, 60_000);
    const recreated = withCidr(await listRules(service), '203.0.113.0/24');

    expect(recreated).toHaveLength(1);
    expect(recreated[0]?.id).not.toBe(rule?.id);
    // The cycle that was reading when the rule went finished; the next one found the gap on its first page, before it ended.
    expect(cyclesFinished.size).toBeLessThanOrEqual(1);
    expect(corrected.live_cache?.full_read_in_progress_since).not.toBeNull();
    expect(corrected.last_reconcile?.trigger).toBe('resync');
  });

  it('ends converged after writes against a stale cache (objects deleted or changed behind its back), duplicating and deleting nothing else', async () => {
    const file = join(manifests, 'rules.yaml');
    const desired = {
      gone: { cidr: '198.51.100.0/24', description: 'v1' },
      changed: { cidr: '203.0.113.0/24', action: 'deny', description: 'v1' },
      steady: { cidr: '192.0.2.0/24', description: 'v1' },
    };
    await writeFile(file, rulesManifest(desired));
    // No background full read within the test: the cache stays as stale as the changes below make it.
    const [service, running] = await start({ ip_policies: [{ id: POLICY, description: 'cache tests' }] }, [
      '--interval',
      '1h',
    ]);
    const before = await eventually(async () => {
      const rules = await listRules(service);
      return rules.length === 3 ? rules : undefined;
    });
    const byCidr = (rules: readonly LiveRule[], cidr: string): LiveRule | undefined =>
      rules.find((rule) => rule.cidr === cidr);
    await callService(service, 'DELETE', `/ip_policy_rules/${byCidr(before, '198.51.100.0/24')?.id}`);
    await callService(service, 'PATCH', `/ip_policy_rules/${byCidr(before, '203.0.113.0/24')?.id}`, {
      cidr: '203.0.113.128/25',
      description: 'changed behind its back',
    });

    await writeFile(
      file,
      rulesManifest({
        ...desired,
        gone: { ...desired.gone, description: 'v2' },
        changed: { ...desired.changed, description: 'v2' },
      }),
    );
    const after = await eventually(async () => {
      const rules = await listRules(service);
      return byCidr(rules, '198.51.100.0/24')?.description === 'v2' &&
        byCidr(rules, '203.0.113.0/24')?.description === 'v2'
        ? rules
        : undefined;
    });
    const status = await getStatus(running);

    expect(after).toHaveLength(3);
    expect(byCidr(after, '198.51.100.0/24')?.id).not.toBe(byCidr(before, '198.51.100.0/24')?.id);
    expect(byCidr(after, '203.0.113.0/24')).toMatchObject({
      id: byCidr(before, '203.0.113.0/24')?.id,
      action: 'deny',
      description: 'v2',
    });
    expect(byCidr(after, '192.0.2.0/24')).toEqual(byCidr(before, '192.0.2.0/24'));
    expect(status.last_reconcile?.result).toBe('applied');
    expect(status.live_cache?.last_full_cycle).toBeNull();
    expect(status.last_reconcile?.trigger).toBe('change');
    expect(status.live_cache?.last_change_to_first_write_ms).not.toBeNull();
  });

  it('checks a delete by GET first: a rule whose marker changed behind its back is not pruned', async () => {
    const file = join(manifests, 'rules.yaml');
    const desired = { kept: { cidr: '192.0.2.0/24' }, 'handed-over': { cidr: '198.51.100.0/24' } };
    await writeFile(file, rulesManifest(desired));
    const [service, running] = await start({ ip_policies: [{ id: POLICY, description: 'cache tests' }] }, [
      '--interval',
      '1h',
    ]);
    const before = await eventually(async () => {
      const rules = await listRules(service);
      return rules.length === 2 ? rules : undefined;
    });
    const handedOver = withCidr(before, '198.51.100.0/24')[0];
    const otherOwner = encodeMetadata(undefined, { owner: 'another-team', name: 'handed-over' });
    await callService(service, 'PATCH', `/ip_policy_rules/${handedOver?.id}`, { metadata: otherOwner });
    const reconcilesBefore = (await getStatus(running)).last_reconcile?.finished_at;

    await writeFile(file, rulesManifest({ kept: desired.kept }));
    const after = await eventually(async () => {
      const status = await getStatus(running);
      return status.last_reconcile?.trigger === 'change' &&
        status.last_reconcile.finished_at !== reconcilesBefore
        ? status
        : undefined;
    });
    const rules = await listRules(service);

    expect(after.last_reconcile?.result).toBe('in-sync');
    expect(after.live_cache?.last_targeted_reads).toBe(1);
    expect(rules).toHaveLength(2);
    expect(withCidr(rules, '198.51.100.0/24')[0]).toMatchObject({ id: handedOver?.id, metadata: otherOwner });
  });

  it('costs one read beyond its writes for a one-rule change, and falls back to a full read when a write meets a taken unique key', async () => {
    const file = join(manifests, 'rules.yaml');
    await writeFile(file, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'v1' } }));
    const [service, running] = await start({ ip_policies: [{ id: POLICY, description: 'cache tests' }] }, [
      '--interval',
      '1h',
    ]);
    await eventually(async () =>
      (await getStatus(running)).last_reconcile?.result === 'applied' ? true : undefined,
    );
    const usedBefore = (await getStatus(running)).live_cache?.requests_by_purpose;

    await writeFile(file, rulesManifest({ office: { cidr: '203.0.113.0/24', description: 'v2' } }));
    await eventually(async () =>
      withCidr(await listRules(service), '203.0.113.0/24')[0]?.description === 'v2' ? true : undefined,
    );
    const usedAfterEdit = (await getStatus(running)).live_cache?.requests_by_purpose;
    // Someone else takes the CIDR the next edit adds; the cache does not know.
    const taken = await callService(service, 'POST', '/ip_policy_rules', {
      ip_policy_id: POLICY,
      cidr: '198.51.100.0/24',
      action: 'allow',
      description: 'not ours',
    });
    await writeFile(
      file,
      rulesManifest({
        office: { cidr: '203.0.113.0/24', description: 'v2' },
        lab: { cidr: '198.51.100.0/24', description: 'lab' },
      }),
    );
    const refused = await eventually(async () => {
      const status = await getStatus(running);
      return status.last_plan?.errors.length ? status : undefined;
    });
    const samples = parsePrometheusText(await (await fetch(`${running.url}/metrics`)).text());
    await writeFile(
      file,
      rulesManifest({
        office: { cidr: '203.0.113.0/24', description: 'v2' },
        lab: { cidr: '198.51.100.128/25', description: 'lab' },
      }),
    );
    const converged = await eventually(async () => {
      const rules = await listRules(service);
      return withCidr(rules, '198.51.100.128/25').length === 1 ? rules : undefined;
    });

    expect(usedAfterEdit).toEqual({
      full_read: usedBefore?.full_read,
      targeted_read: (usedBefore?.targeted_read ?? 0) + 1,
      write: (usedBefore?.write ?? 0) + 1,
    });
    expect(sampleSum(samples, 'edgesync_live_cache_drops_total', { kind: 'ip_policy_rules' })).toBe(1);
    expect(refused.last_plan?.errors[0]?.message).toContain('198.51.100.0/24');
    expect(withCidr(converged, '198.51.100.0/24')).toEqual([
      expect.objectContaining({ id: (taken.body as LiveRule).id, description: 'not ours' }),
    ]);
    expect(converged).toHaveLength(3);
  });

  it('in observe mode reports drift found by a background full read, from the cache, and writes nothing', async () => {
    await writeFile(join(manifests, 'rules.yaml'), rulesManifest({ office: { cidr: '203.0.113.0/24' } }));
    const [service, running] = await start(
      {
        ip_policies: [{ id: POLICY, description: 'cache tests' }],
        ip_policy_rules: [
          {
            ip_policy_id: POLICY,
            cidr: '203.0.113.0/24',
            action: 'allow',
            metadata: encodeMetadata(undefined, { owner: OWNER, name: 'office' }),
          },
        ],
      },
      ['--mode', 'observe', '--interval', '1s'],
    );
    await eventually(async () =>
      (await getStatus(running)).last_reconcile?.result === 'in-sync' ? true : undefined,
    );
    const [rule] = await listRules(service);

    await callService(service, 'PATCH', `/ip_policy_rules/${rule?.id}`, {
      description: 'changed behind its back',
    });
    const drift = await eventually(async () => {
      const status = await getStatus(running);
      return status.last_reconcile?.result === 'drift' ? status : undefined;
    });
    const cycle = await eventually(async () => {
      const status = await getStatus(running);
      return status.live_cache?.last_full_cycle?.kinds_changed.includes('ip_policy_rules')
        ? status
        : undefined;
    });
    const routes = await emulatorRoutes(service);

    expect(drift.last_plan?.changes).toEqual(['ip_policy_rules.office']);
    expect(drift.last_plan?.applied).toBe(false);
    expect(drift.last_reconcile?.trigger).toBe('resync');
    expect(cycle.live_cache?.requests_by_purpose.write).toBe(0);
    expect(count(routes, isWrite)).toBe(1);
    expect((await listRules(service))[0]?.description).toBe('changed behind its back');
  });
});
