import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { LoadOptions } from '../manifest/load-desired-state.js';
import { ManifestMemo } from '../manifest/manifest-memo.js';
import { Notifier, type NotifierOptions } from '../notify/notifier.js';
import type { PlanOptions } from '../plan/planner-options.js';
import { NamedIdsMemo } from '../plan-session/named-ids-memo.js';
import { type BudgetPause, withBudgetPause } from './budget-pause-health.js';
import { type CommitStatusOptions, CommitStatusReporter } from './commit-status/commit-status-reporter.js';
import { CurrentRecord } from './current-record.js';
import type { DaemonClock } from './daemon-clock.js';
import { commitStatusEvent, DaemonEvents, notificationEvent, recordEvent } from './daemon-events.js';
import type { DaemonStatus, WatchMode } from './daemon-status.js';
import { ForcedReads } from './forced-read.js';
import { FullReadCycle } from './full-read-cycle.js';
import { checkedOutCommit } from './git-commit.js';
import { inventoryAnswer } from './inventory-endpoint.js';
import type { ListenAddress } from './listen-address.js';
import { LiveCacheWriter } from './live-cache-writer.js';
import type { LiveCacheView } from './live-state-cache.js';
import { ManifestWatcher } from './manifest-watcher.js';
import { notificationChanges } from './notification-changes.js';
import { PendingEvents } from './pending-events.js';
import { BackgroundReadApi, type BudgetRate, ReadShare } from './read-share.js';
import { DEFAULT_SETTLE_MS, SETTLE_MAX_FACTOR } from './reconcile/desired-settling.js';
import { InSyncLedger } from './reconcile/in-sync-ledger.js';
import { namedModuleOnlyIds } from './reconcile/plan-stage.js';
import { firstRecord, type ReconcileRecord } from './reconcile/reconcile-record.js';
import { type ReconcileParts, runReconcile, verdictOf } from './reconcile/run-reconcile.js';
import {
  type ForcedRequestState,
  type ForcedTrigger,
  isForcedTrigger,
  type LoopHealth,
  ReconcileLoop,
  type ReconcileRun,
  type StopOutcome,
} from './reconcile-loop.js';
import { RecordInventories } from './record-inventory.js';
import { publishRecordMetrics } from './record-metrics.js';
import { daemonStatus } from './record-status.js';
import { statusPageRenderer } from './status-page/status-page-endpoint.js';
import type { SuspendAction } from './suspend-endpoint.js';
import { Suspension, type SuspensionChange } from './suspension.js';
import type { WatchMetrics } from './watch-metrics.js';
import { startWatchServer } from './watch-server.js';
export interface DaemonOptions {
  /** The registry of kinds (the CLI's): what the daemon loads, reads, plans and applies. */
  readonly kinds: readonly Kind[];
  readonly paths: readonly string[];
  readonly cwd: string;
  readonly mode: WatchMode;
  readonly load: LoadOptions;
  readonly plan: PlanOptions;
  readonly api: EdgeApi;
  /**
   * The client's request budget, of which background full reads take
   * `readShare`; its pauses (429) go into the heartbeat when it reports them.
   */
  readonly budget: BudgetRate & Partial<BudgetPause>;
  /** Fraction (0, 1] of the budget background full reads may use. @default 0.25 */
  readonly readShare?: number;
  /** Must be the one whose `recordRequest` the client's `onRequest` calls. */
  readonly metrics: WatchMetrics;
  readonly logger: Logger;
  readonly clock: DaemonClock;
  /** Returns a number in [0, 1). */
  readonly random: () => number;
  readonly listen: ListenAddress;
  /** Milliseconds. @default 500 */
  readonly debounceMs?: number;
  /**
   * How long a DELETE waits after the last change event on the files that
   * held its entry or could be receiving it (desired-settling.ts),
   * milliseconds; 0 sends deletes at once. @default DEFAULT_SETTLE_MS (10 s)
   */
  readonly settleMs?: number;
  /**
   * --settle-max: once an entry has been absent from every read this long,
   * its delete goes however steadily files of its kind keep changing,
   * milliseconds. @default SETTLE_MAX_FACTOR × settleMs
   */
  readonly settleMaxMs?: number;
  /** Milliseconds between the starts of background full reads (and resyncs). @default 300000 */
  readonly intervalMs?: number;
  /** How long a reconcile in flight may run on after shutdown begins, milliseconds. @default 20000 */
  readonly shutdownTimeoutMs?: number;
  /** Actions in flight at once while applying. @default 4 */
  readonly concurrency?: number;
  /** Aborts to shut down. */
  readonly signal: AbortSignal;
  /**
   * Subscribes to reload requests (SIGHUP): each one re-reads the manifests
   * at once, as a resync does. Returns the unsubscribe function.
   */
  readonly subscribeReload?: (reload: () => void) => () => void;
  /** Called once the HTTP server is bound, with its URL. */
  readonly onListening?: (url: string) => void;
  /** --notify: webhook notifications; none are made when absent. */
  readonly notify?: DaemonNotifyOptions;
  /** --reconcile-token-file: enables POST /reconcile for whoever holds the token in this file. */
  readonly reconcileTokenFile?: string;
  /** --suspend-token-file: enables POST /suspend and POST /resume for whoever holds the token in this file. */
  readonly suspendTokenFile?: string;
  /** --status-token-file: `/`, `/status` and `/inventory` answer only requests bearing the token in this file. */
  readonly statusTokenFile?: string;
  /** --suspended: start suspended (reads and reports, sends no write) until `edgesync resume`. @default false */
  readonly suspended?: boolean;
  /** --commit-status: the Git host each checked-out commit's state is posted to; none in observe mode. */
  readonly commitStatus?: CommitStatusOptions;
  /** Called with each record once it is the daemon's current one (after its metrics and notifications). */
  readonly onRecord?: (record: ReconcileRecord) => void;
}

/** What the command line decides of the notifications; the daemon adds the rest. */
export type DaemonNotifyOptions = Pick<
  NotifierOptions,
  | 'targets'
  | 'timeoutMs'
  | 'retries'
  | 'expiryWindowMs'
  | 'scrub'
  | 'backoffMs'
  | 'healthCheckMs'
  | 'statusPageUrl'
> & {
  /** `--instance`; null when not set. */
  readonly instance: string | null;
  /** The service's host, which tells a staging daemon from a production one. */
  readonly service: string;
};

/** The daemon's long-lived parts, made in the order they depend on each other. */
interface DaemonParts {
  readonly log: Logger;
  readonly loop: ReconcileLoop;
  readonly health: () => LoopHealth;
  readonly records: CurrentRecord;
  readonly forcedReads: ForcedReads;
  readonly fullReads: FullReadCycle;
  readonly watcher: ManifestWatcher;
  readonly notifier: Notifier | null;
  readonly commitStatuses: CommitStatusReporter | null;
  readonly suspension: Suspension;
  readonly status: () => DaemonStatus;
  readonly run: ReconcileRun;
}

/**
 * The daemon: the HTTP endpoints, the watcher, and the reconcile loop that
 * both the watcher and the resync timer feed. Resolves once `signal` has
 * aborted and everything is stopped: watcher first (no new work), then the
 * loop (the run in flight finishes or is abandoned at the deadline), then the
 * server.
 */
export async function runDaemon(options: DaemonOptions): Promise<StopOutcome> {
  // The last events, for the status page: each record, notification and commit status post as it happens.
  const events = new DaemonEvents();
  const parts = daemonParts(options, events);
  const { log, loop, fullReads, watcher, notifier, commitStatuses } = parts;
  const requestForced = (trigger: ForcedTrigger): { ticket: number; state: ForcedRequestState } => {
    const state = loop.requestForced(trigger);
    return { ticket: parts.forcedReads.requested(trigger, state), state };
  };
  // What the owner manages, as the current record knows it: `/inventory` and the page's table.
  const inventories = new RecordInventories(options.kinds, options.plan.owner);
  const server = await startWatchServer({
    listen: options.listen,
    registry: options.metrics.registry,
    status: parts.status,
    logger: options.logger,
    health: parts.health,
    ...(options.reconcileTokenFile === undefined
      ? {}
      : {
          reconcile: {
            tokenFile: options.reconcileTokenFile,
            request: () => requestForced('forced'),
            logger: options.logger,
          },
        }),
    inventory: (query) =>
      inventoryAnswer(
        {
          owner: options.plan.owner,
          inventory: () => inventories.of(parts.records.record),
          manifestsValid: () => parts.records.record.manifests.valid,
        },
        query,
      ),
    ...(options.suspendTokenFile === undefined
      ? {}
      : {
          suspend: {
            tokenFile: options.suspendTokenFile,
            ...(options.reconcileTokenFile === undefined
              ? {}
              : { reconcileTokenFile: options.reconcileTokenFile }),
            act: (action: SuspendAction, from: string) => suspendOrResume(parts, action, from),
            logger: options.logger,
          },
        }),
    ...(options.statusTokenFile === undefined
      ? {}
      : { statusToken: { tokenFile: options.statusTokenFile, logger: options.logger } }),
    statusPage: statusPageRenderer({
      status: parts.status,
      history: options.metrics.requestHistory,
      budget: options.budget,
      clock: options.clock,
      current: () => {
        const { record } = parts.records;
        return { reconcile: record.runs, inventory: inventories.of(record) };
      },
      events: () => events.list(),
    }),
  });
  options.onListening?.(server.url);
  const unsubscribeReload = options.subscribeReload?.(() => {
    log.info('reload requested (SIGHUP): re-reading the manifests and the whole account now');
    requestForced('sighup');
  });
  try {
    await watcher.start();
    logSuspensionAtStart(log, options);
    log.info({ mode: options.mode, paths: options.paths, owner: options.plan.owner }, 'watching');
    if (!options.signal.aborted) {
      loop.start(parts.run);
      fullReads.start();
      notifier?.start();
    }
    await aborted(options.signal);
    log.info('shutting down');
    await watcher.close();
    await fullReads.stop();
    const outcome = await loop.stop(options.shutdownTimeoutMs ?? 20_000);
    log.info({ inFlight: outcome }, 'stopped');
    return outcome;
  } finally {
    unsubscribeReload?.();
    await watcher.close();
    await fullReads.stop();
    await loop.stop(0);
    // What is queued gets a moment to go out; a receiver that never answers does not hold the shutdown.
    await Promise.all([notifier?.close(2000), commitStatuses?.close(2000)]);
    await server.close();
  }
}

/**
 * Makes the daemon's parts, each after what it uses: the cache and the
 * read share, the loop (the scheduler everything else asks for runs), the
 * current record, the background reads, the watcher, the notifications,
 * and last the run, which uses them all.
 */
function daemonParts(options: DaemonOptions, events: DaemonEvents): DaemonParts {
  const { clock, metrics } = options;
  const intervalMs = options.intervalMs ?? 300_000;
  const settle = settleBounds(options);
  const { kinds, api, logger } = options;
  const writer = new LiveCacheWriter({ kinds, api, clock, logger });
  const cache = writer.view;
  const readShare = new ReadShare({ budget: options.budget, share: options.readShare ?? 0.25 });
  metrics.readShare.set(readShare.share);
  const forcedReads = new ForcedReads({
    kinds: options.kinds.map((kind) => kind.name),
    writer,
    api: options.api,
    clock,
    logger: options.logger,
  });
  const loop = new ReconcileLoop({
    clock,
    random: options.random,
    logger: options.logger,
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
    intervalMs,
  });
  const health = (): LoopHealth => budgetedHealth(loop.health(), options.budget, intervalMs);
  const suspension = new Suspension(() => clock.now(), options.suspended ?? false);
  metrics.registerDaemonGauges({
    suspended: () => suspension.suspended,
    loopIsStuck: () => !health().alive,
    cacheAgeSeconds: () => cacheAgeSeconds(cache, clock),
  });
  const ledger = new InSyncLedger();
  const records = new CurrentRecord(firstRecord(settle, ledger));
  const fullReads = backgroundReads(options, { writer, readShare, records, loop, intervalMs });
  const pending = new PendingEvents();
  const watcher = new ManifestWatcher({
    paths: options.paths,
    cwd: options.cwd,
    allowOutsideRoot: options.load.allowOutsideRoot ?? false,
    logger: options.logger,
    onChange: (change) => {
      pending.note(change, clock.now());
      loop.notifyChange();
    },
  });
  const notifier = notifierFor(options, health, events);
  const commitStatuses = commitStatusesFor(options, events);
  const status = (): DaemonStatus =>
    daemonStatus(records.record, {
      identity: { mode: options.mode, owner: options.plan.owner, paths: options.paths },
      clock,
      cache,
      readShare,
      fullReads,
      requestsByPurpose: () => metrics.requestsByPurpose,
      watcher,
      forcedReads,
      notifier,
      commitStatuses,
      suspension,
    });
  const reconcileParts = reconcilePartsFor(options, {
    cache,
    writer,
    readShare,
    forcedReads,
    settlePeriodMs: settle.periodMs,
    settleMaxMs: settle.maxMs,
    ledger,
    writesHeld: () => suspension.suspended,
  });
  const log = options.logger.child({ component: 'daemon' });
  const after = {
    log,
    records,
    forcedReads,
    notifier,
    commitStatuses,
    loop,
    status,
    metrics,
    onRecord: options.onRecord,
  };
  const run = reconcileRun(options, { watcher, pending, reconcileParts, after, suspension, events });
  return {
    log,
    loop,
    health,
    records,
    forcedReads,
    fullReads,
    watcher,
    notifier,
    commitStatuses,
    suspension,
    status,
    run,
  };
}

/** --settle and --settle-max, milliseconds, with their defaults. */
function settleBounds(options: DaemonOptions): { readonly periodMs: number; readonly maxMs: number } {
  const periodMs = options.settleMs ?? DEFAULT_SETTLE_MS;
  return { periodMs, maxMs: options.settleMaxMs ?? SETTLE_MAX_FACTOR * periodMs };
}

/**
 * `POST /suspend` or `POST /resume` let through: the suspension changes (or
 * is already as asked), the log says who asked, and a run is asked for so
 * that `/status`, the page and the commit status say so at once (and, on
 * resume, what waited is applied).
 */
function suspendOrResume(parts: DaemonParts, action: SuspendAction, from: string): SuspensionChange {
  const change = action === 'suspend' ? parts.suspension.suspend(from) : parts.suspension.resume();
  if (!change.changed) {
    parts.log.info(
      { action, from, since: change.status.since },
      `${action}: already ${action === 'suspend' ? 'suspended' : 'running'}`,
    );
    return change;
  }
  if (action === 'suspend') {
    parts.log.warn(
      { action, from },
      'suspended: the daemon reads and reports drift, and sends no write until edgesync resume',
    );
    parts.notifier?.announce(
      'daemon_suspended',
      `suspended by ${from}: drift is reported, nothing is applied until edgesync resume`,
    );
  } else {
    parts.log.warn({ action, from }, 'resumed: the daemon applies again');
    parts.notifier?.announce('daemon_resumed', `resumed by ${from}: the daemon applies again`);
  }
  parts.loop.requestResync();
  return change;
}

/** What the log says of the suspension as the daemon starts: it lives in memory, so a restart without --suspended resumes. */
function logSuspensionAtStart(log: Logger, options: DaemonOptions): void {
  if (options.suspended === true) {
    log.warn(
      { suspended: true },
      'started suspended (--suspended): the daemon reads and reports drift, and sends no write until edgesync resume',
    );
  } else if (options.suspendTokenFile !== undefined) {
    log.info(
      { suspended: false },
      'not suspended: a suspension made by edgesync suspend lives in memory and ended with the last restart; start with --suspended (EDGESYNC_SUSPENDED) to stay suspended',
    );
  }
}

/** What every run is made with: the daemon's options and the long-lived parts the stages use. */
function reconcilePartsFor(
  options: DaemonOptions,
  parts: Pick<
    ReconcileParts,
    | 'cache'
    | 'writer'
    | 'readShare'
    | 'forcedReads'
    | 'settlePeriodMs'
    | 'settleMaxMs'
    | 'ledger'
    | 'writesHeld'
  >,
): ReconcileParts {
  return {
    kinds: options.kinds,
    paths: options.paths,
    load: options.load,
    plan: options.plan,
    api: options.api,
    clock: options.clock,
    logger: options.logger,
    memo: new ManifestMemo(),
    namedIds: new NamedIdsMemo(),
    concurrency: options.concurrency ?? 4,
    cwd: options.cwd,
    ...parts,
  };
}

/**
 * The background resync: every kind read in full, paced by the read share,
 * for the module-only edges the current record's manifests name; drift it
 * finds asks the loop for a run.
 */
function backgroundReads(
  options: DaemonOptions,
  parts: {
    readonly writer: LiveCacheWriter;
    readonly readShare: ReadShare;
    readonly records: CurrentRecord;
    readonly loop: ReconcileLoop;
    readonly intervalMs: number;
  },
): FullReadCycle {
  const { writer, records, loop, intervalMs } = parts;
  const { metrics } = options;
  return new FullReadCycle({
    api: new BackgroundReadApi(options.api, parts.readShare, writer.takeInPage),
    kinds: options.kinds.map((kind) => kind.name),
    writer,
    clock: options.clock,
    logger: options.logger,
    intervalMs,
    namedModuleOnly: () => {
      const desired = records.record.manifests.desired;
      return desired === null ? null : namedModuleOnlyIds(options.kinds, desired);
    },
    onDrift: () => loop.requestResync(),
    onCycle: (cycle) => {
      metrics.fullCycleSeconds.set(cycle.durationMs / 1000);
      metrics.fullCycleRequests.set(cycle.requests);
    },
  });
}

/** Seconds since the cache's oldest full read; null until every kind was read. */
function cacheAgeSeconds(cache: LiveCacheView, clock: DaemonClock): number | null {
  const at = cache.facts().oldestFullReadAt;
  return at === null ? null : (clock.now() - at) / 1000;
}

/** The loop's heartbeat, with the service's refusals added when the budget reports them. */
function budgetedHealth(health: LoopHealth, budget: DaemonOptions['budget'], intervalMs: number): LoopHealth {
  if (budget.pausedForMs === undefined || budget.refusingForMs === undefined) return health;
  return withBudgetPause(
    health,
    { pausedForMs: budget.pausedForMs, refusingForMs: budget.refusingForMs },
    intervalMs,
  );
}

function notifierFor(
  options: DaemonOptions,
  health: () => LoopHealth,
  events: DaemonEvents,
): Notifier | null {
  if (options.notify === undefined) return null;
  const { instance, service, ...notify } = options.notify;
  return new Notifier({
    ...notify,
    identity: { owner: options.plan.owner, instance, service },
    mode: options.mode,
    registry: options.metrics.registry,
    logger: options.logger,
    clock: options.clock,
    random: options.random,
    health,
    onOutcome: (outcome) => events.add(notificationEvent(outcome, options.clock.now())),
  });
}

/** A daemon in observe mode posts no commit status: it applies nothing, so no commit goes live through it. */
function commitStatusesFor(options: DaemonOptions, events: DaemonEvents): CommitStatusReporter | null {
  if (options.commitStatus === undefined) return null;
  if (options.mode === 'observe') {
    options.logger.warn(
      '--commit-status is ignored in observe mode: the daemon applies nothing, so it posts no commit status',
    );
    return null;
  }
  return new CommitStatusReporter(options.commitStatus, {
    clock: options.clock,
    random: options.random,
    logger: options.logger,
    registry: options.metrics.registry,
    onResult: (result, commit, detail) =>
      events.add(commitStatusEvent(result, commit, detail, options.clock.now())),
  });
}

/** Who learns of a record once it is the current one. */
interface RecordReaders {
  readonly log: Logger;
  readonly records: CurrentRecord;
  readonly forcedReads: ForcedReads;
  readonly notifier: Notifier | null;
  readonly commitStatuses: CommitStatusReporter | null;
  readonly loop: ReconcileLoop;
  readonly status: () => DaemonStatus;
  readonly metrics: WatchMetrics;
  readonly onRecord: ((record: ReconcileRecord) => void) | undefined;
}

/**
 * The loop's run: the checkout's commit and the pending file event read
 * first, then one reconcile (run-reconcile.ts), whose record replaces the
 * current one before anything reads it: the forced-read tickets, the
 * metrics, the notifications and, when deletes were held, the settle check.
 */
function reconcileRun(
  options: DaemonOptions,
  parts: {
    readonly watcher: ManifestWatcher;
    readonly pending: PendingEvents;
    readonly reconcileParts: ReconcileParts;
    readonly after: RecordReaders;
    readonly suspension: Suspension;
    /** The daemon's last events: each record joins them as it becomes the current one. */
    readonly events: DaemonEvents;
  },
): ReconcileRun {
  const { watcher, pending, reconcileParts, after, suspension, events: daemonEvents } = parts;
  const checkout = resolve(options.cwd, options.paths[0] ?? '.');
  return async (trigger, signal) => {
    // The resync also re-resolves symlinked paths, in case a swap raised no event.
    if (trigger === 'resync' || isForcedTrigger(trigger)) await watcher.refresh();
    // Read before the files: if the checkout moves meanwhile, the older commit is reported and the change reconciles next.
    const commit = await checkedOutCommit(checkout);
    after.forcedReads.begin(trigger);
    after.commitStatuses?.reconciling(commit);
    const events = pending.take();
    const input = {
      trigger,
      mode: suspension.suspended ? ('suspended' as const) : options.mode,
      commit,
      changeEventAt: events.firstAt,
      fileEvents: events.events,
    };
    const record = await runReconcile(reconcileParts, after.records.record, input, signal);
    const previous = after.records.replace(record);
    const event = recordEvent(record, previous, options.clock.now());
    if (event !== null) daemonEvents.add(event);
    after.commitStatuses?.afterRecord(record);
    after.forcedReads.end(trigger, record.run?.outcome.result ?? null);
    publishRecordMetrics(after.metrics, record);
    const live = record.git.lastAppliedCommit;
    if (live !== previous.git.lastAppliedCommit)
      after.log.info({ commit: live, result: record.lastReconcile?.result }, 'commit live');
    after.notifier?.afterReconcile(after.status(), record.expiries?.list ?? [], {
      correctedDrift: record.run?.correctedDrift ?? [],
      changes: (addresses) => notificationChanges(record.plan?.changes ?? [], addresses),
    });
    const settleCheckInMs = record.run?.settleCheckInMs ?? null;
    if (settleCheckInMs !== null) after.loop.requestSettle(settleCheckInMs);
    after.onRecord?.(record);
    return verdictOf(record);
  };
}

/** Resolves once `signal` has aborted. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
