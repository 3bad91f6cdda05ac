import { ApiError } from '../../src/api/api-error.js';
import type { ApplyResult } from '../../src/apply/apply-result.js';
import { executePlan } from '../../src/apply/execute-plan.js';
import type { AppliedWrite, EmulatorSeed } from '../../src/emulator/server.js';
import { readLiveState } from '../../src/kinds/read-live-state.js';
import { KINDS } from '../../src/kinds/registry.js';
import type { DesiredEntry } from '../../src/manifest/desired-state.js';
import type { Plan } from '../../src/plan/plan.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import type { PlanOptions } from '../../src/plan/planner-options.js';
import { type Harness, listAll, startHarness } from '../apply/apply-harness.js';
import { silentLogger } from '../apply/hand-plan.js';
import { desiredState } from '../plan/builders.js';
import type { AccountSnapshot, AnsweredWrite } from './access-model.js';

/** An emulator whose applied writes are recorded in order, with the edges whose modules the model reads. */
export interface AccessHarness extends Harness {
  readonly writes: AnsweredWrite[];
  readonly tcpEdges: readonly string[];
  readonly tlsEdges: readonly string[];
  /** Called with the count of writes applied so far, after each one. */
  onWrite: ((count: number) => void) | undefined;
}

export async function startAccessHarness(
  seed: EmulatorSeed,
  emulatorOptions: { readonly dropRate?: number; readonly random?: () => number } = {},
): Promise<AccessHarness> {
  const writes: AnsweredWrite[] = [];
  let harness: AccessHarness | undefined;
  const base = await startHarness({
    seed,
    ...emulatorOptions,
    onWriteApplied: (write: AppliedWrite) => {
      writes.push({ method: write.method, path: write.path, body: write.body });
      harness?.onWrite?.(writes.length);
    },
  });
  harness = {
    ...base,
    writes,
    tcpEdges: (seed.tcp_edges ?? []).map((edge) => String(edge.id)),
    tlsEdges: (seed.tls_edges ?? []).map((edge) => String(edge.id)),
    onWrite: undefined,
  };
  return harness;
}

/** The account as the service shows it, in the model's raw shape. */
export async function readSnapshot(harness: AccessHarness): Promise<AccountSnapshot> {
  const byId = (items: Record<string, unknown>[]) => new Map(items.map((item) => [String(item.id), item]));
  const moduleEdges = async (kind: 'tcp' | 'tls', ids: readonly string[], modules: readonly string[]) => {
    const edges = new Map<string, Record<string, unknown>>();
    for (const id of ids) {
      const edge: Record<string, unknown> = { id };
      for (const module of modules) {
        try {
          const response = await harness.inspect.request<Record<string, unknown>>({
            method: 'GET',
            path: `/edges/${kind}/${id}/${module}`,
          });
          edge[module] = response.body;
        } catch (error) {
          // An unset module answers 404.
          if (!(error instanceof ApiError) || error.status !== 404) throw error;
          edge[module] = null;
        }
      }
      edges.set(id, edge);
    }
    return edges;
  };
  return {
    rules: byId(await listAll(harness, '/ip_policy_rules', 'ip_policy_rules')),
    cas: byId(await listAll(harness, '/certificate_authorities', 'certificate_authorities')),
    reservedAddrs: byId(await listAll(harness, '/reserved_addrs', 'reserved_addrs')),
    httpsEdges: byId(await listAll(harness, '/edges/https', 'https_edges')),
    tcpEdges: await moduleEdges('tcp', harness.tcpEdges, ['ip_restriction']),
    tlsEdges: await moduleEdges('tls', harness.tlsEdges, ['mutual_tls']),
  };
}

export const ACCESS_OWNER = 'access-test';

/** Reads the account, plans `entries` against it. */
export async function planAgainst(
  harness: AccessHarness,
  entries: readonly DesiredEntry[],
  options: Partial<PlanOptions> = {},
): Promise<Plan> {
  const desired = desiredState(entries);
  const live = await readLiveState(harness.api, {
    kinds: KINDS,
    idsByKind: {
      tcp_edges: entries.flatMap((entry) => (entry.kind === 'tcp_edges' && entry.id ? [entry.id] : [])),
      tls_edges: entries.flatMap((entry) => (entry.kind === 'tls_edges' && entry.id ? [entry.id] : [])),
    },
  });
  return planChanges(desired, live, {
    kinds: KINDS,
    owner: ACCESS_OWNER,
    force: true,
    allowEmpty: true,
    ...options,
  });
}

/**
 * Applies a plan through the real executor. With `killAfter`, the apply is
 * aborted the moment the emulator has applied that many writes of it, and
 * requests still in flight are cut off at once: their answers are lost.
 */
export async function applyPlan(
  harness: AccessHarness,
  plan: Plan,
  options: { readonly killAfter?: number; readonly concurrency?: number } = {},
): Promise<ApplyResult> {
  const controller = new AbortController();
  const before = harness.writes.length;
  const { killAfter } = options;
  harness.onWrite =
    killAfter === undefined
      ? undefined
      : (count) => {
          if (count - before >= killAfter) controller.abort();
        };
  try {
    return await executePlan(plan, {
      api: harness.api,
      logger: silentLogger,
      concurrency: options.concurrency ?? 4,
      signal: controller.signal,
      graceMs: 0,
    });
  } finally {
    harness.onWrite = undefined;
  }
}

/**
 * The plan with its actions in a random order that its dependencies allow,
 * each made to wait for the one before: the executor answers them in exactly
 * that order, one of those it may take on its own.
 */
export function shuffledPlan(plan: Plan, random: () => number): Plan {
  const remaining = new Map(plan.actions.map((action) => [action.key, action]));
  const done = new Set<string>();
  const order: Plan['actions'][number][] = [];
  while (remaining.size > 0) {
    const ready = [...remaining.values()].filter((action) =>
      action.dependsOn.every((key) => done.has(key) || !remaining.has(key)),
    );
    const next = ready[Math.floor(random() * ready.length)];
    if (next === undefined) throw new Error('the plan has a dependency cycle');
    order.push(next);
    remaining.delete(next.key);
    done.add(next.key);
  }
  return {
    ...plan,
    actions: order.map((action, index) => {
      const previous = order[index - 1];
      return previous === undefined ? action : { ...action, dependsOn: [...action.dependsOn, previous.key] };
    }),
  };
}
