import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PQueue from 'p-queue';
import { pino } from 'pino';
import type { EdgeApi } from '../src/api/edge-api.js';
import { executePlan } from '../src/apply/execute-plan.js';
import { builtInLoad } from '../src/cli/built-in-registry.js';
import type { RequestStatsSnapshot } from '../src/emulator/request-stats.js';
import type { RunningEmulator } from '../src/emulator/server.js';
import { KINDS, kindByName } from '../src/kinds/registry.js';
import type { Plan } from '../src/plan/plan.js';
import { preparePlan } from '../src/plan-session/prepare-plan.js';
import { clientFor, emulatorStats, resetEmulatorStats, startSeededEmulator } from './bench-emulator.js';
import { type BenchSection, figure, round } from './bench-figure.js';
import { rollingWindowFloorSeconds } from './budget-floor.js';
import { type AccountSize, buildSyntheticAccount, writeManifests } from './synthetic-account.js';

const SECTION = 'api-cost';
const OWNER = 'bench';
const PAGE = 100;

export const FULL_ACCOUNT: AccountSize = {
  rules: 5000,
  reservedAddrs: 500,
  certificateAuthorities: 300,
  httpsEdges: 300,
  routesPerEdge: 2,
  tcpEdges: 100,
  tlsEdges: 100,
};

export const QUICK_ACCOUNT: AccountSize = {
  rules: 500,
  reservedAddrs: 50,
  certificateAuthorities: 30,
  httpsEdges: 30,
  routesPerEdge: 2,
  tcpEdges: 10,
  tlsEdges: 10,
};

/**
 * List pages of every listed kind plus one GET per managed TCP/TLS module,
 * and one GET per IP policy or endpoint configuration the manifests name
 * (`namedIds`: the plan checks that the account holds each): what no reader
 * can do without.
 */
export function floorRequests(size: AccountSize, namedIds = 0): number {
  const pages = (count: number): number => Math.max(1, Math.ceil(count / PAGE));
  return (
    namedIds +
    pages(size.rules) +
    pages(size.reservedAddrs) +
    pages(size.certificateAuthorities) +
    pages(size.httpsEdges) +
    size.tcpEdges * 1 +
    size.tlsEdges * 2
  );
}

interface ListedKind {
  readonly path: string;
  readonly key: string;
}

const LISTED: readonly ListedKind[] = [
  { path: '/ip_policy_rules', key: 'ip_policy_rules' },
  { path: '/reserved_addrs', key: 'reserved_addrs' },
  { path: '/certificate_authorities', key: 'certificate_authorities' },
  { path: '/edges/https', key: 'https_edges' },
];

/**
 * What a Terraform-style provider's refresh costs: the lists, then one GET
 * per object and one per module it manages (every route's OIDC module, each
 * TCP/TLS edge and its modules). Written here only to be counted.
 */
async function perResourceRefresh(api: EdgeApi, ids: { tcp: string[]; tls: string[] }): Promise<void> {
  const queue = new PQueue({ concurrency: 16 });
  const get = (path: string): Promise<unknown> => queue.add(() => api.request({ method: 'GET', path }));
  const pending: Promise<unknown>[] = [];
  for (const kind of LISTED) {
    for await (const page of api.paginate<{ id: string; routes?: { id: string }[] }>(kind.path, kind.key)) {
      for (const item of page.items) {
        pending.push(get(`${kind.path}/${item.id}`));
        for (const route of item.routes ?? [])
          pending.push(get(`${kind.path}/${item.id}/routes/${route.id}/oidc`));
      }
    }
  }
  for (const id of ids.tcp) pending.push(get(`/edges/tcp/${id}`), get(`/edges/tcp/${id}/ip_restriction`));
  for (const id of ids.tls) {
    pending.push(
      get(`/edges/tls/${id}`),
      get(`/edges/tls/${id}/mutual_tls`),
      get(`/edges/tls/${id}/tls_termination`),
    );
  }
  await Promise.all(pending);
}

function routeCounts(stats: RequestStatsSnapshot): Record<string, number> {
  return Object.fromEntries(Object.entries(stats.byRoute).sort(([a], [b]) => a.localeCompare(b)));
}

export async function runApiCostBench(quick: boolean): Promise<BenchSection> {
  const size = quick ? QUICK_ACCOUNT : FULL_ACCOUNT;
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-api-'));
  let emulator: RunningEmulator | undefined;
  try {
    const account = await buildSyntheticAccount({ size, owner: OWNER });
    await writeManifests(account, join(dir, 'manifests'));
    emulator = await startSeededEmulator(account.seed);
    const api = clientFor(emulator);
    const logger = pino({ level: 'silent' });
    const paths = [join(dir, 'manifests')];
    const plan = async (): Promise<Plan> => {
      const prepared = await preparePlan(paths, api, {
        load: { ...builtInLoad(), owner: OWNER, cwd: dir },
        plan: { kinds: KINDS, owner: OWNER, force: true },
      });
      if (!prepared.ok) throw new Error(`synthetic manifests are invalid: ${prepared.errors[0]?.message}`);
      return prepared.value.plan;
    };

    // Edges are adopted and modules written once; after that the account is what the manifests say.
    const first = await plan();
    const converge = await executePlan(first, { api, concurrency: 16, logger, kindByName });

    await resetEmulatorStats(emulator);
    const noOp = await plan();
    const planStats = await emulatorStats(emulator);

    await resetEmulatorStats(emulator);
    const tcpIds = (account.seed.tcp_edges ?? []).map((edge) => String(edge.id));
    const tlsIds = (account.seed.tls_edges ?? []).map((edge) => String(edge.id));
    await perResourceRefresh(api, { tcp: tcpIds, tls: tlsIds });
    const refreshStats = await emulatorStats(emulator);

    // Every seeded policy and endpoint configuration is named by some entry.
    const namedIds =
      (account.seed.ip_policies ?? []).length + (account.seed.endpoint_configurations ?? []).length;
    const floor = floorRequests(size, namedIds);
    const made = planStats.total;
    const refresh = refreshStats.total;
    const objects = `${size.rules} rules, ${size.reservedAddrs} addrs, ${size.certificateAuthorities} CAs, ${size.httpsEdges} HTTPS edges x ${size.routesPerEdge ?? 2} OIDC routes, ${size.tcpEdges} TCP + ${size.tlsEdges} TLS edges`;
    return {
      section: SECTION,
      figures: [
        figure(SECTION, 'account', objects),
        figure(
          SECTION,
          'no-op plan: actions',
          noOp.actions.length,
          '',
          `convergence apply before it: ${converge.done} done, ${converge.failed} failed`,
        ),
        figure(SECTION, 'no-op plan: requests', made, 'requests', 'counted by the emulator'),
        figure(
          SECTION,
          'floor: list pages + TCP/TLS module GETs + named policy GETs',
          floor,
          'requests',
          `edgesync/floor = ${round(made / floor, 2)}`,
        ),
        figure(
          SECTION,
          'per-resource-GET refresh',
          refresh,
          'requests',
          `measured; ${round(refresh / made, 1)}x edgesync`,
        ),
        figure(
          SECTION,
          'no-op plan time at 120/60s',
          rollingWindowFloorSeconds(made),
          's',
          'floor((N-1)/120) x 60 s',
        ),
        figure(SECTION, 'refresh time at 120/60s', rollingWindowFloorSeconds(refresh), 's', 'same formula'),
      ],
      details: {
        size,
        entries: account.entries,
        convergeActions: first.actions.length,
        convergeFailed: converge.failed,
        noOpActions: noOp.actions.length,
        planRequestsByRoute: routeCounts(planStats),
        refreshRequestsByRoute: routeCounts(refreshStats),
      },
    };
  } finally {
    await emulator?.close();
    await rm(dir, { recursive: true, force: true });
  }
}
