import type { Logger } from 'pino';
import type { EdgeApi } from '../api/edge-api.js';
import type { LoadOptions } from '../manifest/load-desired-state.js';
import type { PlanOptions } from '../plan/planner-options.js';
import type { DaemonClock } from './daemon-clock.js';
import type { WatchMode } from './daemon-status.js';
import type { ListenAddress } from './listen-address.js';
import { ManifestWatcher } from './manifest-watcher.js';
import { ReconcileLoop, type StopOutcome } from './reconcile-loop.js';
import type { WatchMetrics } from './watch-metrics.js';
import { WatchReconciler } from './watch-reconciler.js';
import { startWatchServer } from './watch-server.js';

export interface DaemonOptions {
  readonly paths: readonly string[];
  readonly cwd: string;
  readonly mode: WatchMode;
  readonly load: LoadOptions;
  readonly plan: PlanOptions;
  readonly api: EdgeApi;
  /** Must be the one whose `recordRequest` the client's `onRequest` calls. */
  readonly metrics: WatchMetrics;
  readonly logger: Logger;
  readonly clock: DaemonClock;
  /** Returns a number in [0, 1). */
  readonly random: () => number;
  readonly listen: ListenAddress;
  /** Milliseconds. @default 500 */
  readonly debounceMs?: number;
  /** Milliseconds between resyncs. @default 300000 */
  readonly intervalMs?: number;
  /** How long a reconcile in flight may run on after shutdown begins, milliseconds. @default 20000 */
  readonly shutdownTimeoutMs?: number;
  /** Actions in flight at once while applying. @default 4 */
  readonly concurrency?: number;
  /** Aborts to shut down. */
  readonly signal: AbortSignal;
  /** Called once the HTTP server is bound, with its URL. */
  readonly onListening?: (url: string) => void;
}

/**
 * The daemon: the HTTP endpoints, the watcher, and the reconcile loop that
 * both the watcher and the resync timer feed. Resolves once `signal` has
 * aborted and everything is stopped: watcher first (no new work), then the
 * loop (the run in flight finishes or is abandoned at the deadline), then the
 * server.
 */
export async function runDaemon(options: DaemonOptions): Promise<StopOutcome> {
  const log = options.logger.child({ component: 'daemon' });
  const reconciler = new WatchReconciler({
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
  const server = await startWatchServer({
    listen: options.listen,
    registry: options.metrics.registry,
    status: () => reconciler.status(),
    logger: options.logger,
  });
  options.onListening?.(server.url);

  let watcher: ManifestWatcher | null = null;
  const loop = new ReconcileLoop({
    reconcile: async (trigger, signal) => {
      // The resync also re-resolves symlinked paths, in case a swap raised no event.
      if (trigger === 'resync') await watcher?.refresh();
      return reconciler.run(trigger, signal);
    },
    clock: options.clock,
    random: options.random,
    logger: options.logger,
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
  });
  try {
    watcher = await ManifestWatcher.start({
      paths: options.paths,
      cwd: options.cwd,
      allowOutsideRoot: options.load.allowOutsideRoot ?? false,
      logger: options.logger,
      onChange: () => loop.notifyChange(),
    });
    log.info({ mode: options.mode, paths: options.paths, owner: options.plan.owner }, 'watching');
    if (!options.signal.aborted) loop.start();
    await new Promise<void>((resolve) => {
      if (options.signal.aborted) resolve();
      else options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    log.info('shutting down');
    await watcher.close();
    const outcome = await loop.stop(options.shutdownTimeoutMs ?? 20_000);
    log.info({ inFlight: outcome }, 'stopped');
    return outcome;
  } finally {
    await watcher?.close();
    await loop.stop(0);
    await server.close();
  }
}
