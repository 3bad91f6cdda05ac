import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { ApiClient } from '../src/api/client.js';
import { RequestBudget } from '../src/api/request-budget.js';
import { executePlan } from '../src/apply/execute-plan.js';
import { builtInLoad } from '../src/cli/built-in-registry.js';
import type { EmulatorOptions, RunningEmulator } from '../src/emulator/server.js';
import { KINDS, kindByName } from '../src/kinds/registry.js';
import type { Plan } from '../src/plan/plan.js';
import { preparePlan } from '../src/plan-session/prepare-plan.js';
import { clientFor, emulatorStats, startSeededEmulator } from './bench-emulator.js';
import { type BenchFigure, type BenchSection, figure, round } from './bench-figure.js';
import { rollingWindowFloorSeconds } from './budget-floor.js';
import {
  buildSyntheticAccount,
  rulesOnly,
  type SyntheticAccount,
  writeManifests,
} from './synthetic-account.js';

const SECTION = 'throughput';
const OWNER = 'bench';
const logger = pino({ level: 'silent' });

interface Scenario {
  readonly dir: string;
  readonly emulator: RunningEmulator;
  readonly api: ApiClient;
  readonly plan: Plan;
}

/** A fresh emulator holding only the IP policies, and the plan that creates `rules` rules in it. */
async function createScenario(
  account: SyntheticAccount,
  dir: string,
  emulatorOptions: EmulatorOptions,
  budget?: RequestBudget,
): Promise<Scenario> {
  const emulator = await startSeededEmulator(
    { ip_policies: account.seed.ip_policies ?? [] },
    emulatorOptions,
  );
  const api = clientFor(emulator, budget);
  const prepared = await preparePlan([join(dir, 'manifests')], api, {
    load: { ...builtInLoad(), owner: OWNER, cwd: dir },
    plan: { kinds: KINDS, owner: OWNER },
  });
  if (!prepared.ok) throw new Error(`synthetic manifests are invalid: ${prepared.errors[0]?.message}`);
  return { dir, emulator, api, plan: prepared.value.plan };
}

/** Every request of the plan, one after another: the baseline the executor's concurrency is measured against. */
async function applySequentially(api: ApiClient, plan: Plan): Promise<void> {
  for (const action of plan.actions) await api.request(action.request);
}

async function rateLimited(account: SyntheticAccount, dir: string, quick: boolean): Promise<BenchFigure[]> {
  const limit = quick ? { requests: 100, windowMs: 2000 } : { requests: 600, windowMs: 10_000 };
  const scenario = await createScenario(account, dir, { rateLimit: limit }, new RequestBudget(limit));
  try {
    const startedAt = performance.now();
    const result = await executePlan(scenario.plan, {
      api: scenario.api,
      concurrency: 4,
      logger,
      kindByName,
    });
    const wallS = (performance.now() - startedAt) / 1000;
    const stats = await emulatorStats(scenario.emulator);
    // Reads of the plan came before the timer: count the apply's requests only.
    const requests = scenario.api.stats().requests - countReads(stats);
    const perSecond = limit.requests / (limit.windowMs / 1000);
    const achieved = requests / wallS;
    const budget = `${limit.requests}/${limit.windowMs / 1000}s`;
    return [
      figure(
        SECTION,
        `apply ${scenario.plan.actions.length} creates at ${budget}: wall`,
        round(wallS, 1),
        's',
        `${result.done} done, ${result.failed} failed`,
      ),
      figure(SECTION, 'requests sent by the apply', requests, 'requests'),
      figure(SECTION, 'achieved rate', round(achieved, 1), 'req/s', `budget R = ${perSecond} req/s`),
      figure(
        SECTION,
        'utilization (achieved / R)',
        round((100 * achieved) / perSecond, 0),
        '%',
        "over 100% is the first window's burst",
      ),
      figure(SECTION, '429 responses', stats.byStatus['429'] ?? 0, ''),
      figure(
        SECTION,
        'wall / (N/R)',
        round(wallS / (requests / perSecond), 2),
        'x',
        `N/R = ${round(requests / perSecond, 1)} s; rolling-window floor ${rollingWindowFloorSeconds(requests, limit.requests, limit.windowMs)} s`,
      ),
    ];
  } finally {
    await scenario.emulator.close();
  }
}

function countReads(stats: { byRoute: Readonly<Record<string, number>> }): number {
  return Object.entries(stats.byRoute)
    .filter(([route]) => route.startsWith('GET '))
    .reduce((sum, [, count]) => sum + count, 0);
}

async function concurrencySpeedUp(account: SyntheticAccount, dir: string): Promise<BenchFigure[]> {
  const latency = { latencyMs: 50 };
  const timed = async (run: (scenario: Scenario) => Promise<unknown>): Promise<number> => {
    const scenario = await createScenario(account, dir, latency);
    try {
      const startedAt = performance.now();
      await run(scenario);
      return (performance.now() - startedAt) / 1000;
    } finally {
      await scenario.emulator.close();
    }
  };
  const sequential = await timed((scenario) => applySequentially(scenario.api, scenario.plan));
  const figures = [
    figure(
      SECTION,
      `50 ms latency, ${account.entries} creates: sequential client`,
      round(sequential, 2),
      's',
    ),
  ];
  for (const concurrency of [4, 16]) {
    const wall = await timed((scenario) =>
      executePlan(scenario.plan, { api: scenario.api, concurrency, logger, kindByName }),
    );
    figures.push(
      figure(
        SECTION,
        `50 ms latency: executor concurrency ${concurrency}`,
        round(wall, 2),
        's',
        `speed-up ${round(sequential / wall, 1)}x over sequential`,
      ),
    );
  }
  return figures;
}

export async function runThroughputBench(quick: boolean): Promise<BenchSection> {
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-throughput-'));
  try {
    const sized = (rules: number) =>
      buildSyntheticAccount({
        owner: OWNER,
        seedManaged: false,
        size: rulesOnly(rules),
      });
    const limited = await sized(quick ? 200 : 2000);
    await writeManifests(limited, join(dir, 'manifests'));
    const figures = await rateLimited(limited, dir, quick);
    await rm(join(dir, 'manifests'), { recursive: true });
    const latency = await sized(quick ? 40 : 200);
    await writeManifests(latency, join(dir, 'manifests'));
    figures.push(...(await concurrencySpeedUp(latency, dir)));
    return { section: SECTION, figures };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
