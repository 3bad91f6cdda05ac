import type { Logger } from 'pino';
import type { ApiRequest, EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { Action, Plan, ResourceChange } from '../plan/plan.js';
import { type ActionDone, ActionPerformer } from './action-performer.js';
import { ApplyLedger, type ProgressEvent } from './apply-ledger.js';
import type { ApplyResult } from './apply-result.js';
import { DependencyScheduler } from './dependency-scheduler.js';
import { Interruption } from './interruption.js';
import { MarkerLookup } from './marker-lookup.js';

export type { ProgressEvent } from './apply-ledger.js';

export interface ExecutePlanOptions {
  readonly api: EdgeApi;
  /** Actions in flight at once. @default 4 */
  readonly concurrency?: number;
  /**
   * Once aborted no action starts; actions in flight get `graceMs` to finish,
   * then their requests are aborted too.
   */
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** How long in-flight actions may run after `signal` aborts, in milliseconds. @default 10_000 */
  readonly graceMs?: number;
  /** Milliseconds since the epoch. @default Date.now */
  readonly clock?: () => number;
  /**
   * The kinds registry (`kindByName`), for the module read-back after a
   * module write whose outcome is unknown. Without it the read-back is a GET
   * on the write's own path, which the service answers for every module.
   */
  readonly kindByName?: (name: KindName) => Pick<Kind, 'moduleReadRequest'>;
  /**
   * Tries of one write before the action fails: each send, and each lookup
   * or read-back that failed, is one. An unknown outcome is always resolved
   * by a lookup (creates) or read-back (module writes), the last one's too;
   * only a write that did not land is sent again. Every send may meet an
   * unknown outcome again, so the chance that all of them do is that chance
   * to the power of the attempts: at 15% per send (a 5xx or drop after
   * sending), 3 attempts leave 1 create in 300 unresolved, 5 leave 1 in
   * 13,000.
   * @default 5
   */
  readonly maxAttempts?: number;
}

/**
 * Carries out a plan: each action starts as soon as every action it depends
 * on is done, at most `concurrency` at a time (DependencyScheduler); each is
 * sent and its unknown outcomes settled by an ActionPerformer; the client
 * keeps all of them inside its request budget. A failure fails only the
 * actions that depend on it. The result accounts for every action of the plan.
 */
export async function executePlan(plan: Plan, options: ExecutePlanOptions): Promise<ApplyResult> {
  const log = options.logger.child({ component: 'executor' });
  const { api } = options;
  const graceMs = options.graceMs ?? 10_000;
  const waitAtStart = api.stats().rateLimitWaitMs;
  const ledger = new ApplyLedger(plan, {
    logger: log,
    clock: options.clock ?? Date.now,
    rateLimitWaitMs: () => api.stats().rateLimitWaitMs - waitAtStart,
    onProgress: options.onProgress,
  });
  const changesByAddress = new Map(plan.changes.map((change) => [change.address, change]));
  const interruption = new Interruption(graceMs, options.signal);
  const markerLookup = new MarkerLookup({
    api,
    preexistingIds: new Set(Object.keys(plan.fingerprints)),
    signal: interruption.settle,
  });
  const performer = new ActionPerformer({
    api,
    markerLookup,
    signal: interruption.inFlight,
    stopBeforeSending: interruption.stopped,
    settleSignal: interruption.settle,
    logger: log,
    stopping: () => interruption.stopping,
    moduleReadRequest: (action, written) =>
      moduleReadRequest(action, written, changesByAddress, options.kindByName),
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  });
  const done = new Map<string, ActionDone>();
  const scheduler = new DependencyScheduler(plan.actions, {
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    signal: interruption.stopped,
    onStart: (action) => ledger.started(action),
    perform: async (action) => {
      done.set(action.key, await performer.perform(action));
    },
    onDone: (action) => ledger.done(action, done.get(action.key) ?? {}),
    onFailed: (action, error) => ledger.failed(action, error),
    onSkipped: (action, failed) => ledger.skipped(action, failed),
  });
  interruption.onStop(() =>
    log.warn({ running: scheduler.running, graceMs }, 'stopping: no new actions start'),
  );
  try {
    ledger.notStarted((await scheduler.run()).notStarted);
  } finally {
    interruption.dispose();
  }
  const lookups = markerLookup.stats();
  if (lookups.lookups > 0) log.info(lookups, 'marker lookups after unknown outcomes');
  return ledger.result(performer.createdIds);
}

/** The GET that reads back a module write: the kind's own module read when the registry is given. */
function moduleReadRequest(
  action: Action,
  written: ApiRequest,
  changes: ReadonlyMap<string, ResourceChange>,
  kindByName: ExecutePlanOptions['kindByName'],
): ApiRequest {
  const change = changes.get(action.change);
  if (kindByName && change?.id !== undefined && change.module !== undefined) {
    return kindByName(action.kind).moduleReadRequest(
      { id: change.id, ...(change.routeId === undefined ? {} : { routeId: change.routeId }) },
      change.module,
    );
  }
  return { method: 'GET', path: written.path };
}
