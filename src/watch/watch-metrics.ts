import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestEvent } from '../api/client.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import { VERSION } from '../version.js';
import { purposeOf, REQUEST_PURPOSES, type RequestPurpose } from './request-purpose.js';
import { RequestHistory } from './status-page/request-history.js';

/**
 * Outcomes of one reconcile, as counted and reported. `partial`: applied all
 * but the entries it had to skip (`/status` `skipped_entries`); `settling`:
 * applied all but the deletes that wait for the manifests to settle.
 */
export const RECONCILE_RESULTS = [
  'in-sync',
  'applied',
  'drift',
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

/**
 * The daemon's Prometheus metrics, in a registry of their own: the global
 * registry is shared by every library in the process and by tests.
 */
export class WatchMetrics {
  readonly registry = new Registry();
  readonly reconciles: Counter<'result'>;
  readonly reconcileDuration: Histogram;
  readonly driftedObjects: Gauge<'kind'>;
  readonly ownedObjects: Gauge<'kind'>;
  readonly apiRequests: Counter<'method' | 'kind' | 'status'>;
  readonly apiRetries: Counter;
  readonly rateLimitWaitSeconds: Counter;
  readonly manifestsValid: Gauge;
  readonly lastSuccess: Gauge;
  readonly liveCommit: Gauge<'commit'>;
  readonly liveCommitBehind: Gauge;
  readonly loopStuck: Gauge;
  /** By kind, for each kind of the registry with an `expiry` hook (a CA's certificate). */
  readonly expirations: ReadonlyMap<KindName, Gauge<'name' | 'id'>>;
  readonly skippedEntries: Gauge<'kind' | 'reason'>;
  readonly heldDeletes: Gauge;
  /** Whether the reconcile loop counts as stuck, read at scrape time; set by the daemon. */
  loopIsStuck: () => boolean = () => false;
  // Live-state cache and read share: kept in one block, apart from the rest.
  readonly budgetRequests: Counter<'purpose'>;
  readonly cacheAge: Gauge;
  readonly fullCycleSeconds: Gauge;
  readonly fullCycleRequests: Gauge;
  readonly readShare: Gauge;
  readonly changeToFirstWrite: Histogram;
  readonly cacheDrops: Counter<'kind'>;
  /** The same counts as `budgetRequests`, for `/status`. */
  readonly requestsByPurpose: Record<RequestPurpose, number> = {
    'full-read': 0,
    'targeted-read': 0,
    write: 0,
  };
  /** The same requests a minute over the last hour, for the status page's chart. */
  readonly requestHistory = new RequestHistory();
  /** When a request is counted into `requestHistory`, milliseconds since the epoch; set by the daemon to its clock. */
  requestClock: () => number = Date.now;
  /** Seconds since the cache's oldest full read, read at scrape time; set by the daemon. */
  cacheAgeSeconds: () => number | null = () => null;

  /** `kinds`: the registry, for the gauges of kinds whose objects expire. @default none */
  constructor(kinds: readonly Kind[] = []) {
    const registers = [this.registry];
    // One line per metric: name, help and labels say all that differs between them.
    const counter = <Label extends string = string>(
      name: string,
      help: string,
      labelNames: readonly Label[] = [],
    ) => new Counter<Label>({ name, help, labelNames, registers });
    const gauge = <Label extends string = string>(
      name: string,
      help: string,
      labelNames: readonly Label[] = [],
    ) => new Gauge<Label>({ name, help, labelNames, registers });
    this.reconciles = counter('edgesync_reconciles_total', 'Reconciles by result.', ['result']);
    for (const result of RECONCILE_RESULTS) this.reconciles.inc({ result }, 0);
    this.reconcileDuration = new Histogram({
      name: 'edgesync_reconcile_duration_seconds',
      help: 'Wall time of one reconcile (load, read live, plan, apply).',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.driftedObjects = gauge(
      'edgesync_drifted_objects',
      'Objects whose live state differed from the manifests at the last reconcile, by kind.',
      ['kind'],
    );
    this.ownedObjects = gauge(
      'edgesync_owned_objects',
      'Live objects managed by this owner at the last reconcile, by kind.',
      ['kind'],
    );
    this.apiRequests = counter(
      'edgesync_api_requests_total',
      'HTTP requests to the service (every attempt), by method, kind and status ("error" when no response).',
      ['method', 'kind', 'status'],
    );
    this.apiRetries = counter(
      'edgesync_api_retries_total',
      'Requests sent again after a 429, a 5xx or a dropped connection.',
    );
    this.rateLimitWaitSeconds = counter(
      'edgesync_rate_limit_wait_seconds_total',
      'Seconds spent waiting for the request budget or a Retry-After.',
    );
    this.manifestsValid = gauge(
      'edgesync_manifests_valid',
      '1 when the manifests loaded and validated at the last attempt, 0 otherwise.',
    );
    this.lastSuccess = gauge(
      'edgesync_last_success_timestamp_seconds',
      'Unix time of the last reconcile that left the account as the manifests say (or, observing, that planned).',
    );
    // Live-state cache and read share.
    this.budgetRequests = counter(
      'edgesync_budget_requests_total',
      'Requests of the budget (every attempt) by purpose: full-read (startup, background resync, after a surprise), targeted-read (what a change touches), write.',
      ['purpose'],
    );
    for (const purpose of REQUEST_PURPOSES) this.budgetRequests.inc({ purpose }, 0);
    this.cacheAge = new Gauge({
      name: 'edgesync_live_cache_age_seconds',
      help: 'Seconds since the oldest kind of the live-state cache was last read in full; absent until every kind was.',
      registers,
      collect: () => {
        const age = this.cacheAgeSeconds();
        if (age === null) this.cacheAge.reset();
        else this.cacheAge.set(age);
      },
    });
    this.fullCycleSeconds = gauge(
      'edgesync_full_read_cycle_seconds',
      'Wall time of the last background full read (the longest any drift waits to be seen), paced by --read-share.',
    );
    this.fullCycleRequests = gauge(
      'edgesync_full_read_cycle_requests',
      'Requests of the last background full read (list pages and module GETs).',
    );
    this.readShare = gauge(
      'edgesync_read_share_ratio',
      'Share of the request budget background full reads may use (--read-share).',
    );
    this.changeToFirstWrite = new Histogram({
      name: 'edgesync_change_to_first_write_seconds',
      help: 'From the first file event of a change to the first write of the reconcile that applied it.',
      buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 120],
      registers,
    });
    this.cacheDrops = counter(
      'edgesync_live_cache_drops_total',
      'Kinds dropped from the live-state cache after a write met a surprise (404, unique-key conflict), by kind.',
      ['kind'],
    );
    this.skippedEntries = gauge(
      'edgesync_skipped_entries',
      'Entries the last plan could not apply and left as they are while the rest was applied, by kind and reason (/status skipped_entries).',
      ['kind', 'reason'],
    );
    this.heldDeletes = gauge(
      'edgesync_held_deletes',
      'Changes whose DELETE waits for the manifests to read the same over --settle.',
    );
    this.liveCommit = gauge(
      'edgesync_live_commit_info',
      'The commit of the manifests checkout that the last successful reconcile applied (value 1).',
      ['commit'],
    );
    this.liveCommitBehind = gauge(
      'edgesync_live_commit_behind',
      '1 while the checkout holds a commit other than the one last applied, else 0.',
    );
    this.expirations = new Map(
      kinds.flatMap((kind) =>
        kind.expiry === undefined
          ? []
          : [
              [
                kind.name,
                gauge(
                  `edgesync_${kind.expiry.metric}_expiration_timestamp_seconds`,
                  `When each managed ${kind.title} expires, by manifest name and live ID (empty until it exists).`,
                  ['name', 'id'],
                ),
              ] as const,
            ],
      ),
    );
    const metrics = this;
    this.loopStuck = new Gauge({
      name: 'edgesync_reconcile_loop_stuck',
      help: '1 while /healthz answers 503: a reconcile has run over 3x --interval, or none is scheduled.',
      registers,
      collect() {
        this.set(metrics.loopIsStuck() ? 1 : 0);
      },
    });
    // What runs, as an info metric (value 1): dashboards join on it, alerts spot a mixed fleet.
    new Gauge({
      name: 'edgesync_build_info',
      help: 'The edgesync version and the Node.js version running it; always 1.',
      labelNames: ['version', 'node'],
      registers,
    }).set({ version: VERSION, node: process.versions.node }, 1);
    collectDefaultMetrics({ register: this.registry });
    // prom-client's totals of active handles, requests and resources are gauges named like counters,
    // which `promtool check metrics` rejects; the same counts stay, by type, in the labelled gauges
    // nodejs_active_handles, nodejs_active_requests and nodejs_active_resources (sum them for the total).
    for (const name of UNCOUNTED_DEFAULT_GAUGES) this.registry.removeSingleMetric(name);
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
    this.requestHistory.record(purpose, this.requestClock());
  }

  /** Replaces a per-kind gauge's values, so kinds that dropped to zero show 0 rather than a stale count. */
  static setByKind(gauge: Gauge<'kind'>, counts: Readonly<Record<string, number>>): void {
    gauge.reset();
    for (const [kind, count] of Object.entries(counts)) gauge.set({ kind }, count);
  }
}
