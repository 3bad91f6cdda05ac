import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { LoadOptions } from '../manifest/load-desired-state.js';
import { Notifier, type NotifierOptions } from '../notify/notifier.js';
import type { PlanOptions } from '../plan/planner-options.js';
import { type BudgetPause, withBudgetPause } from './budget-pause-health.js';
import type { DaemonClock } from './daemon-clock.js';
import type { DaemonStatus, LiveCacheStatus, WatchMode } from './daemon-status.js';
import { DEFAULT_SETTLE_MS, DesiredSettling } from './desired-settling.js';
import { ForcedReads } from './forced-read.js';
import { type FullCycleRecord, FullReadCycle } from './full-read-cycle.js';
import { checkedOutCommit } from './git-commit.js';
import type { ListenAddress } from './listen-address.js';
import { LiveCacheWriter } from './live-cache-writer.js';
import { ManifestWatcher } from './manifest-watcher.js';
import { BackgroundReadApi, type BudgetRate, ReadShare } from './read-share.js';
import {
  type ForcedRequestState,
  type ForcedTrigger,
  isForcedTrigger,
  type LoopHealth,
  ReconcileLoop,
  type StopOutcome,
} from './reconcile-loop.js';
import { statusPageRenderer } from './status-page/status-page-endpoint.js';
import type { WatchMetrics } from './watch-metrics.js';
import { WatchReconciler } from './watch-reconciler.js';
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
   * How long the manifests must read the same before a DELETE they ask for
   * is sent, milliseconds; 0 sends deletes at once. @default DEFAULT_SETTLE_MS (10 s)
   */
  readonly settleMs?: number;
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
}

/** What the command line decides of the notifications; the daemon adds the rest. */
export type DaemonNotifyOptions = Pick<
  NotifierOptions,
  'targets' | 'timeoutMs' | 'retries' | 'expiryWindowMs' | 'scrub' | 'backoffMs' | 'healthCheckMs'
>;

/**
 * The daemon: the HTTP endpoints, the watcher, and the reconcile loop that
 * both the watcher and the resync timer feed. Resolves once `signal` has
 * aborted and everything is stopped: watcher first (no new work), then the
 * loop (the run in flight finishes or is abandoned at the deadline), then the
 * server.
 */
export async function runDaemon(options: DaemonOptions): Promise<StopOutcome> {
  const log = options.logger.child({ component: 'daemon' });
  const intervalMs = options.intervalMs ?? 300_000;
  const writer = new LiveCacheWriter({
    kinds: options.kinds,
    api: options.api,
    clock: options.clock,
    logger: options.logger,
  });
  const cache = writer.view;
  const forcedReads = new ForcedReads({
    kinds: options.kinds.map((kind) => kind.name),
    writer,
    api: options.api,
    clock: options.clock,
    logger: options.logger,
  });
  const readShare = new ReadShare({ budget: options.budget, share: options.readShare ?? 0.25 });
  let changeEventAt: number | null = null;
  let loop: ReconcileLoop | null = null;
  const reconciler = new WatchReconciler({
    kinds: options.kinds,
    settling: new DesiredSettling(options.settleMs ?? DEFAULT_SETTLE_MS),
    requestSettleCheck: (delayMs) => loop?.requestSettle(delayMs),
    cache,
    writer,
    readShare,
    forcedReads,
    takeChangeEventAt: () => {
      const at = changeEventAt;
      changeEventAt = null;
      return at;
    },
    paths: options.paths,
    load: options.load,
    plan: options.plan,
    mode: options.mode,
    api: options.api,
    metrics: options.metrics,
    logger: options.logger,
    clock: options.clock,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
  let lastFullCycle: FullCycleRecord | null = null;
  let fullReads: FullReadCycle | null = null;
  options.metrics.readShare.set(readShare.share);
  options.metrics.requestClock = () => options.clock.now();
  options.metrics.cacheAgeSeconds = () => {
    const at = cache.facts().oldestFullReadAt;
    return at === null ? null : (options.clock.now() - at) / 1000;
  };
  const cacheStatus = (): LiveCacheStatus => {
    const facts = cache.facts();
    const since = fullReads?.inProgressSince ?? null;
    return {
      complete: facts.complete,
      kindsToRead: facts.kindsToRead,
      objects: facts.objects,
      ageMs: facts.oldestFullReadAt === null ? null : options.clock.now() - facts.oldestFullReadAt,
      readShare: readShare.share,
      readShareRequestsPerMinute: readShare.requestsPerMinute,
      fullReadInProgressSince: since === null ? null : new Date(since).toISOString(),
      lastFullCycle,
      requestsByPurpose: { ...options.metrics.requestsByPurpose },
      lastTargetedReads: reconciler.lastTargetedReads,
      lastChangeToFirstWriteMs: reconciler.lastChangeToFirstWriteMs,
    };
  };
  const git = {
    lastAppliedCommit: null as string | null,
    lastAppliedAt: null as string | null,
    checkoutCommit: null as string | null,
  };
  let watcher: ManifestWatcher | null = null;
  const status = (): DaemonStatus => {
    const reconciled = reconciler.status();
    const coverage = watcher?.coverage();
    // A daemon blind to edits in some directories is not ready, however well its last reconcile went.
    const blind = coverage?.notReadyReason ?? null;
    return {
      ...reconciled,
      ready: reconciled.ready && blind === null,
      notReadyReason: reconciled.notReadyReason ?? blind,
      git: { ...git },
      liveCache: cacheStatus(),
      watcher: {
        watchedDirectories: coverage?.watchedDirectories ?? 0,
        unwatchedDirectories: coverage?.unwatchedDirectories ?? [],
      },
      forcedReconcile: forcedReads.status(),
      ...(notifier === null ? {} : { notifications: notifier.status() }),
    };
  };
  const recordCommit = (commit: string | null): void => {
    git.checkoutCommit = commit;
    const result = reconciler.status().lastReconcile?.result;
    if (
      commit !== null &&
      (result === 'in-sync' || result === 'applied') &&
      commit !== git.lastAppliedCommit
    ) {
      git.lastAppliedCommit = commit;
      git.lastAppliedAt = new Date(options.clock.now()).toISOString();
      options.metrics.liveCommit.reset();
      options.metrics.liveCommit.set({ commit }, 1);
      log.info({ commit, result }, 'commit live');
    }
    options.metrics.liveCommitBehind.set(commit !== null && commit !== git.lastAppliedCommit ? 1 : 0);
  };
  const checkout = resolve(options.cwd, options.paths[0] ?? '.');
  let loopHealth = (): LoopHealth => ({ alive: true, detail: 'starting' });
  const notifier =
    options.notify === undefined
      ? null
      : new Notifier({
          ...options.notify,
          owner: options.plan.owner,
          mode: options.mode,
          registry: options.metrics.registry,
          logger: options.logger,
          clock: options.clock,
          random: options.random,
          health: () => loopHealth(),
        });
  const requestForced = (trigger: ForcedTrigger): { ticket: number; state: ForcedRequestState } => {
    reconciler.sayManifestsRead();
    const state = loop?.requestForced(trigger) ?? 'coalesced';
    return { ticket: forcedReads.requested(trigger, state), state };
  };
  const server = await startWatchServer({
    listen: options.listen,
    registry: options.metrics.registry,
    status,
    logger: options.logger,
    health: () => loopHealth(),
    ...(options.reconcileTokenFile === undefined
      ? {}
      : {
          reconcile: {
            tokenFile: options.reconcileTokenFile,
            request: () => requestForced('forced'),
            logger: options.logger,
          },
        }),
    statusPage: statusPageRenderer({
      status,
      history: options.metrics.requestHistory,
      budget: options.budget,
      clock: options.clock,
    }),
  });
  options.onListening?.(server.url);

  loop = new ReconcileLoop({
    reconcile: async (trigger, signal) => {
      // The resync also re-resolves symlinked paths, in case a swap raised no event.
      if (trigger === 'resync' || isForcedTrigger(trigger)) await watcher?.refresh();
      // Read before the files: if the checkout moves meanwhile, the older commit is reported and the change reconciles next.
      const commit = await checkedOutCommit(checkout);
      forcedReads.begin(trigger);
      const verdict = await reconciler.run(trigger, signal);
      forcedReads.end(trigger, reconciler.status().lastReconcile?.result ?? null);
      recordCommit(commit);
      notifier?.afterReconcile(status(), reconciler.expiries());
      return verdict;
    },
    clock: options.clock,
    random: options.random,
    logger: options.logger,
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
    intervalMs,
  });
  const { budget } = options;
  loopHealth = () =>
    budget.pausedForMs === undefined || budget.refusingForMs === undefined
      ? loop.health()
      : withBudgetPause(
          loop.health(),
          { pausedForMs: budget.pausedForMs, refusingForMs: budget.refusingForMs },
          intervalMs,
        );
  options.metrics.loopIsStuck = () => !loopHealth().alive;
  const unsubscribeReload = options.subscribeReload?.(() => {
    log.info('reload requested (SIGHUP): re-reading the manifests and the whole account now');
    requestForced('sighup');
  });
  fullReads = new FullReadCycle({
    api: new BackgroundReadApi(options.api, readShare, writer.takeInPage),
    kinds: options.kinds.map((kind) => kind.name),
    writer,
    clock: options.clock,
    logger: options.logger,
    intervalMs,
    namedModuleOnly: () => reconciler.namedModuleOnly(),
    onDrift: () => loop.requestResync(),
    onCycle: (record) => {
      lastFullCycle = record;
      options.metrics.fullCycleSeconds.set(record.durationMs / 1000);
      options.metrics.fullCycleRequests.set(record.requests);
    },
  });
  try {
    watcher = await ManifestWatcher.start({
      paths: options.paths,
      cwd: options.cwd,
      allowOutsideRoot: options.load.allowOutsideRoot ?? false,
      logger: options.logger,
      onChange: () => {
        changeEventAt ??= options.clock.now();
        loop.notifyChange();
      },
    });
    log.info({ mode: options.mode, paths: options.paths, owner: options.plan.owner }, 'watching');
    if (!options.signal.aborted) {
      loop.start();
      fullReads.start();
      notifier?.start();
    }
    await new Promise<void>((resolve) => {
      if (options.signal.aborted) resolve();
      else options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    log.info('shutting down');
    await watcher.close();
    await fullReads.stop();
    const outcome = await loop.stop(options.shutdownTimeoutMs ?? 20_000);
    log.info({ inFlight: outcome }, 'stopped');
    return outcome;
  } finally {
    unsubscribeReload?.();
    await watcher?.close();
    await fullReads.stop();
    await loop.stop(0);
    // What is queued gets a moment to go out; a receiver that never answers does not hold the shutdown.
    await notifier?.close(2000);
    await server.close();
  }
}
