import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestEvent } from '../api/client.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { DIFFERENCES } from '../sync-state.js';
import { BUILD_FACTS } from '../version.js';
import { purposeOf, REQUEST_PURPOSES, type RequestPurpose } from './request-purpose.js';
import { RequestHistory } from './status-page/request-history.js';

/**
 * Outcomes of one reconcile, as counted and reported. `partial`: applied all
 * but the entries it had to skip (`/status` `skipped_entries`); `settling`:
 * applied all but the deletes that wait for the manifests to settle;
 * `drift` and `pending` (observe mode): it found the account changed behind
 * edgesync's back, or only changes from Git not applied yet.
 */
export const RECONCILE_RESULTS = [
  'in-sync',
  'applied',
  'drift',
  'pending',
  'settling',
  'partial',
  'refused',
  'invalid',
  'failed',
] as const;
export type ReconcileResult = (typeof RECONCILE_RESULTS)[number];

/** prom-client default metrics the daemon drops: gauges whose `_total` suffix says counter. */
export const UNCOUNTED_DEFAULT_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
] as const;

/** What the scrape-time gauges read (`WatchMetrics.registerDaemonGauges`). */
export interface DaemonGaugeReaders {
  /** Whether `/healthz` would answer 503 now. */
  readonly loopIsStuck: () => boolean;
  /** Seconds since the cache's oldest full read; null until every kind was read. */
  readonly cacheAgeSeconds: () => number | null;
  /** Whether the daemon is suspended (`edgesync suspend`, `watch --suspended`). */
  readonly suspended: () => boolean;
}

/**
 * The daemon's Prometheus metrics, in a registry of their own: the global
 * registry is shared by every library in the process and by tests.
 */
export class WatchMetrics {
  readonly registry = new Registry();
  // One line per metric: name, help and labels say all that differs between them.
  readonly reconciles = this.#counter('edgesync_reconciles_total', 'Reconciles by result.', ['result']);
  readonly reconcileDuration = new Histogram({
    name: 'edgesync_reconcile_duration_seconds',
    help: 'Wall time of one reconcile (load, read live, plan, apply).',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly differences = this.#gauge(
    'edgesync_differences',
    "What still differs from the manifests after the last reconcile that planned, by state: pending (Git asks for it), drift (changed behind edgesync's back), held (a delete waiting to settle), skipped (entries that cannot be applied).",
    ['state'],
  );
  readonly appliedChanges = this.#counter(
    'edgesync_applied_changes_total',
    "Changes applied whole, by the state they were in: pending (from Git) or drift (put back after a change behind edgesync's back).",
    ['state'],
  );
  /** Deprecated: kept through the next minor release for dashboards that read it; edgesync_differences replaces it. */
  readonly driftedObjects = this.#gauge(
    'edgesync_drifted_objects',
    'DEPRECATED (removed after the next minor release): use edgesync_differences{state=~"pending|drift"}. Objects with a change in the last plan, pending or drift alike, by kind.',
    ['kind'],
  );
  readonly ownedObjects = this.#gauge(
    'edgesync_owned_objects',
    'Live objects managed by this owner at the last reconcile, by kind.',
    ['kind'],
  );
  readonly apiRequests = this.#counter(
    'edgesync_api_requests_total',
    'HTTP requests to the service (every attempt), by method, kind and status ("error" when no response).',
    ['method', 'kind', 'status'],
  );
  readonly apiRetries = this.#counter(
    'edgesync_api_retries_total',
    'Requests sent again after a 429, a 5xx or a dropped connection.',
  );
  readonly rateLimitWaitSeconds = this.#counter(
    'edgesync_rate_limit_wait_seconds_total',
    'Seconds spent waiting for the request budget or a Retry-After.',
  );
  readonly manifestsValid = this.#gauge(
    'edgesync_manifests_valid',
    '1 when the manifests loaded and validated at the last attempt, 0 otherwise.',
  );
  readonly lastSuccess = this.#gauge(
    'edgesync_last_success_timestamp_seconds',
    'Unix time of the last reconcile that left the account as the manifests say (or, observing, that planned).',
  );
  // Live-state cache and read share: kept in one block, apart from the rest.
  readonly budgetRequests = this.#counter(
    'edgesync_budget_requests_total',
    'Requests of the budget (every attempt) by purpose: full-read (startup, background resync, after a surprise), targeted-read (what a change touches), write.',
    ['purpose'],
  );
  readonly fullCycleSeconds = this.#gauge(
    'edgesync_full_read_cycle_seconds',
    'Wall time of the last background full read (the longest any drift waits to be seen), paced by --read-share.',
  );
  readonly fullCycleRequests = this.#gauge(
    'edgesync_full_read_cycle_requests',
    'Requests of the last background full read (list pages and module GETs).',
  );
  readonly readShare = this.#gauge(
    'edgesync_read_share_ratio',
    'Share of the request budget background full reads may use (--read-share).',
  );
  readonly changeToFirstWrite = new Histogram({
    name: 'edgesync_change_to_first_write_seconds',
    help: 'From the first file event of a change to the first write of the reconcile that applied it.',
    buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly cacheDrops = this.#counter(
    'edgesync_live_cache_drops_total',
    'Kinds dropped from the live-state cache after a write met a surprise (404, unique-key conflict), by kind.',
    ['kind'],
  );
  readonly skippedEntries = this.#gauge(
    'edgesync_skipped_entries',
    'Entries the last plan could not apply and left as they are while the rest was applied, by kind and reason (/status skipped_entries).',
    ['kind', 'reason'],
  );
  readonly heldDeletes = this.#gauge(
    'edgesync_held_deletes',
    'Changes whose DELETE waits until the files that could hold its entry have been quiet for --settle (at most --settle-max while the manifests read valid).',
  );
  readonly heldDeletesOverdue = this.#gauge(
    'edgesync_held_deletes_overdue',
    'Of edgesync_held_deletes, those held longer than --settle-max because the manifests do not read valid (/status settle.overdue).',
  );
  readonly liveCommit = this.#gauge(
    'edgesync_live_commit_info',
    'The commit of the manifests checkout that the last successful reconcile applied (value 1).',
    ['commit'],
  );
  readonly liveCommitBehind = this.#gauge(
    'edgesync_live_commit_behind',
    '1 while the checkout holds a commit other than the one last applied, else 0.',
  );
  /** By kind, for each kind of the registry with an `expiry` hook (a CA's certificate). */
  readonly expirations: ReadonlyMap<KindName, Gauge<'name' | 'id'>>;
  /** The same counts as `budgetRequests`, for `/status`. */
  readonly requestsByPurpose: Record<RequestPurpose, number> = {
    'full-read': 0,
    'targeted-read': 0,
    write: 0,
  };
  /** The same requests a minute over the last hour, for the status page's chart. */
  readonly requestHistory = new RequestHistory();
  /** When a request is counted into `requestHistory`, milliseconds since the epoch: the daemon's clock. */
  readonly #now: () => number;

  /**
   * `kinds`: the registry, for the gauges of kinds whose objects expire. @default none
   * `now`: the daemon's clock, milliseconds since the epoch. @default Date.now
   */
  constructor(kinds: readonly Kind[] = [], now: () => number = Date.now) {
    this.#now = now;
    for (const result of RECONCILE_RESULTS) this.reconciles.inc({ result }, 0);
    for (const purpose of REQUEST_PURPOSES) this.budgetRequests.inc({ purpose }, 0);
    this.expirations = new Map(
      kinds.flatMap((kind) =>
        kind.expiry === undefined
          ? []
          : [
              [
                kind.name,
                this.#gauge(
                  `edgesync_${kind.expiry.metric}_expiration_timestamp_seconds`,
                  `When each managed ${kind.title} expires, by manifest name and live ID (empty until it exists).`,
                  ['name', 'id'],
                ),
              ] as const,
            ],
      ),
    );
    // Every state from the start, so that rate() and alerts see a series before the first difference.
    for (const state of ['pending', 'drift'] as const) this.appliedChanges.inc({ state }, 0);
    for (const state of DIFFERENCES) this.differences.set({ state }, 0);
    // What runs, as an info metric (value 1): dashboards join on it, alerts spot a mixed fleet.
    new Gauge({
      name: 'edgesync_build_info',
      help: 'The edgesync version, the Node.js version running it and the platform (edgesync version); always 1.',
      labelNames: ['version', 'node', 'platform', 'arch'],
      registers: [this.registry],
    }).set(
      {
        version: BUILD_FACTS.edgesync,
        node: BUILD_FACTS.node,
        platform: BUILD_FACTS.platform,
        arch: BUILD_FACTS.arch,
      },
      1,
    );
    collectDefaultMetrics({ register: this.registry });
    // prom-client's totals of active handles, requests and resources are gauges named like counters,
    // which `promtool check metrics` rejects; the same counts stay, by type, in the labelled gauges
    // nodejs_active_handles, nodejs_active_requests and nodejs_active_resources (sum them for the total).
    for (const name of UNCOUNTED_DEFAULT_GAUGES) this.registry.removeSingleMetric(name);
  }

  #counter<Label extends string = string>(name: string, help: string, labelNames: readonly Label[] = []) {
    return new Counter<Label>({ name, help, labelNames, registers: [this.registry] });
  }

  #gauge<Label extends string = string>(name: string, help: string, labelNames: readonly Label[] = []) {
    return new Gauge<Label>({ name, help, labelNames, registers: [this.registry] });
  }

  /** The client's `onRequest` hook. */
  recordRequest(event: RequestEvent): void {
    this.apiRequests.inc({
      method: event.method,
      kind: event.kind ?? 'unknown',
      status: event.status === undefined ? 'error' : String(event.status),
    });
    if (event.attempt > 1) this.apiRetries.inc();
    const purpose = purposeOf(event.method);
    this.budgetRequests.inc({ purpose });
    this.requestsByPurpose[purpose] += 1;
    this.requestHistory.record(purpose, this.#now());
  }

  /**
   * The gauges read from the daemon's parts at scrape time: whether the
   * reconcile loop is stuck, and the cache's age. The daemon registers them
   * once the loop and the cache exist.
   */
  registerDaemonGauges(readers: DaemonGaugeReaders): void {
    const registers = [this.registry];
    new Gauge({
      name: 'edgesync_reconcile_loop_stuck',
      help: '1 while /healthz answers 503: a reconcile has run over 3x --interval, or none is scheduled.',
      registers,
      collect() {
        this.set(readers.loopIsStuck() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'edgesync_live_cache_age_seconds',
      help: 'Seconds since the oldest kind of the live-state cache was last read in full; absent until every kind was.',
      registers,
      collect() {
        const age = readers.cacheAgeSeconds();
        if (age === null) this.reset();
        else this.set(age);
      },
    });
    new Gauge({
      name: 'edgesync_suspended',
      help: '1 while the daemon is suspended (edgesync suspend, watch --suspended): it reads and reports drift, and sends no write.',
      registers,
      collect() {
        this.set(readers.suspended() ? 1 : 0);
      },
    });
  }

  /** Replaces a per-kind gauge's values, so kinds that dropped to zero show 0 rather than a stale count. */
  static setByKind(gauge: Gauge<'kind'>, counts: Readonly<Record<string, number>>): void {
    gauge.reset();
    for (const [kind, count] of Object.entries(counts)) gauge.set({ kind }, count);
  }
}
