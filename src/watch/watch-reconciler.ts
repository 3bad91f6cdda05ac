import type { Logger } from 'pino';
import type { EdgeApi } from '../api/edge-api.js';
import { type ApplyResult, applySucceeded } from '../apply/apply-result.js';
import { executePlan, type ProgressEvent } from '../apply/execute-plan.js';
import { EdgesyncError } from '../errors.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveState } from '../kinds/live-state.js';
import type { DesiredState } from '../manifest/desired-state.js';
import { type LoadOptions, loadDesiredState } from '../manifest/load-desired-state.js';
import type { ManifestError } from '../manifest/manifest-error.js';
import { ManifestMemo } from '../manifest/manifest-memo.js';
import type { ObservedExpiry } from '../notify/notification-tracker.js';
import type { Plan } from '../plan/plan.js';
import { planChanges } from '../plan/plan-changes.js';
import type { PlanOptions } from '../plan/planner-options.js';
import { summaryToJson } from '../plan/render-json.js';
import { manifestsRead, manifestsReadToJson } from '../plan-session/manifests-read.js';
import { NamedIdsMemo } from '../plan-session/named-ids-memo.js';
import type { DaemonClock } from './daemon-clock.js';
import {
  type ApplyRecord,
  type DaemonStatus,
  type ManifestProblem,
  type PlanRecord,
  READY_RESULTS,
  type ReconcileRecord,
  type SettleStatus,
  SUCCESS_RESULTS,
  type WatchMode,
} from './daemon-status.js';
import { type DesiredSettling, holdDeletes, type Settling } from './desired-settling.js';
import type { LiveCacheWriter, NamedModuleOnly } from './live-cache-writer.js';
import type { LiveCacheView } from './live-state-cache.js';
import { planFromCache } from './plan-from-cache.js';
import type { ReadShare } from './read-share.js';
import { isForcedTrigger, type ReconcileTrigger, type ReconcileVerdict } from './reconcile-loop.js';
import { withPurpose } from './request-purpose.js';
import { describeSkipped, placeOf, SkippedEntryRecords } from './skipped-entry-records.js';
import { type SkippedEntry, skipStuckEntries } from './stuck-entries.js';
import { type ReconcileResult, WatchMetrics } from './watch-metrics.js';

/** Results that leave the daemon not ready without failing: logged at warn (a failure at error). */
const NOT_READY_WARNINGS: ReadonlySet<ReconcileResult> = new Set(['refused', 'invalid', 'partial']);

export interface WatchReconcilerOptions {
  /** The registry of kinds, in its order: what is loaded, read, planned and applied. */
  readonly kinds: readonly Kind[];
  /** Manifest files and directories. */
  readonly paths: readonly string[];
  readonly load: LoadOptions;
  /** Planned in the `daemon` safety context: `force` and `allowEmpty` are ignored, a refusal is never applied. */
  readonly plan: PlanOptions;
  readonly mode: WatchMode;
  readonly api: EdgeApi;
  readonly metrics: WatchMetrics;
  readonly logger: Logger;
  readonly clock: DaemonClock;
  /** Actions in flight at once while applying. @default 4 */
  readonly concurrency?: number;
  /** The live state every reconcile plans from; filled by full reads, kept current by targeted reads and writes. */
  readonly cache: LiveCacheView;
  /** The cache's one writer: the reads a reconcile asks for and its writes' answers go through it. */
  readonly writer: LiveCacheWriter;
  /** A reconcile is foreground work: background full reads wait while it runs. */
  readonly readShare: ReadShare;
  /** Clock milliseconds of the first file event not yet reconciled, taken (and cleared) by the next run. */
  readonly takeChangeEventAt?: () => number | null;
  /** Whether the desired state has read the same over the settle period (--settle): deletes wait until it has. */
  readonly settling: DesiredSettling;
  /** Asks for a reconcile in `delayMs` milliseconds, when held deletes may go. */
  readonly requestSettleCheck?: (delayMs: number) => void;
  /** A forced reconcile (SIGHUP, POST /reconcile) reads the whole account through it before planning. */
  readonly forcedReads?: { read(named: NamedModuleOnly, signal: AbortSignal): Promise<void> };
}

/** Where one reconcile got to; the loop only sees whether to retry. */
interface Outcome {
  readonly result: ReconcileResult;
  readonly notReadyReason: string | null;
  /**
   * Retry with backoff rather than wait for a change or the resync. Set for
   * failures, and for invalid manifests before any valid set was seen (a
   * git-sync sidecar that has not finished its first clone).
   */
  readonly retry?: boolean;
}

/**
 * One reconcile: load → validate → read live → plan → apply, with the
 * daemon's safety rules on top of the planner's. An invalid manifest set
 * keeps the last valid desired state; a refused plan is reported, not
 * applied; an error anywhere applies nothing; an incomplete listing never
 * leads to deletes. Keeps what `/status` and `/readyz` show.
 */
export class WatchReconciler {
  readonly #options: WatchReconcilerOptions;
  readonly #kindByName: ReadonlyMap<KindName, Kind>;
  #lastValid: DesiredState | null = null;
  #manifestsValid: boolean | null = null;
  #manifestErrors: readonly ManifestProblem[] = [];
  #lastReconcile: ReconcileRecord | null = null;
  #lastSuccessAt: string | null = null;
  #lastError: DaemonStatus['lastError'] = null;
  #lastPlan: PlanRecord | null = null;
  #lastApply: ApplyRecord | null = null;
  #ready = false;
  #notReadyReason: string | null = 'no reconcile has finished yet';
  #runs = 0;
  #rateLimitWaitMs = 0;
  #lastChangeToFirstWriteMs: number | null = null;
  #lastTargetedReads: number | null = null;
  readonly #skipped = new SkippedEntryRecords();
  /** Where the last load left the desired state against the settle period; null before any load. */
  #settled: Settling | null = null;
  #heldDeletes: readonly string[] = [];
  /** Each manifest file's entries since it last changed: a file event re-reads only the files that changed. */
  readonly #memo = new ManifestMemo();
  readonly #namedIds = new NamedIdsMemo();
  /** The last valid desired state's expiries, by its hash. */
  #expiries: { readonly hash: string; readonly list: readonly ObservedExpiry[] } | null = null;
  /** What the last `manifests read` log said; said again when it changes, and on `sayManifestsRead`. */
  #saidManifestsRead: string | null = null;

  constructor(options: WatchReconcilerOptions) {
    this.#options = options;
    this.#kindByName = new Map(options.kinds.map((kind) => [kind.name, kind]));
  }

  status(): DaemonStatus {
    // Manifest validity is known as soon as a reconcile has loaded them, before
    // it finishes: readiness must never say ready while /status says invalid.
    const manifestsInvalid = this.#manifestsValid === false;
    const ready = this.#ready && !manifestsInvalid;
    const notReadyReason = manifestsInvalid
      ? `${this.#manifestErrors.length} manifest error(s); see /status`
      : this.#notReadyReason;
    return {
      mode: this.#options.mode,
      owner: this.#options.plan.owner,
      paths: this.#options.paths,
      ready,
      notReadyReason: ready ? null : notReadyReason,
      manifestsValid: this.#manifestsValid,
      manifestErrors: this.#manifestErrors,
      desiredHash: this.#lastValid?.hash ?? null,
      lastReconcile: this.#lastReconcile,
      lastSuccessAt: this.#lastSuccessAt,
      lastError: this.#lastError,
      lastPlan: this.#lastPlan,
      lastApply: this.#lastApply,
      skippedEntries: this.#skipped.records,
      settle: this.#settleStatus(),
    };
  }

  #settleStatus(): SettleStatus {
    const at = (ms: number | null | undefined): string | null =>
      ms === null || ms === undefined ? null : new Date(ms).toISOString();
    return {
      periodMs: this.#options.settling.periodMs,
      settled: this.#settled?.settled ?? false,
      desiredSince: at(this.#settled?.since),
      settlesAt: at(this.#settled?.settlesAt),
      heldDeletes: this.#heldDeletes,
    };
  }

  /** The next load logs which directories it read, changed or not (a reload on SIGHUP). */
  sayManifestsRead(): void {
    this.#saidManifestsRead = null;
  }

  /** Module-only edge IDs the last valid manifests name, by kind; null before any valid manifests. */
  namedModuleOnly(): NamedModuleOnly | null {
    return this.#lastValid === null ? null : namedModuleOnlyIds(this.#options.kinds, this.#lastValid);
  }

  /**
   * Each entry of the last valid manifests whose kind says when its objects
   * stop working (`Kind.expiry`), with that date and the entry's place.
   */
  expiries(): readonly ObservedExpiry[] {
    const desired = this.#lastValid;
    if (desired === null) return [];
    // Reading a date may parse a certificate: once per desired state, not once per reconcile.
    if (this.#expiries?.hash === desired.hash) return this.#expiries.list;
    const out: ObservedExpiry[] = [];
    for (const entry of desired.entries) {
      const notAfter = this.#kindByName.get(entry.kind)?.expiry?.notAfter(entry.spec);
      if (notAfter === undefined) continue;
      const { file, line, column } = entry.location;
      out.push({ kind: entry.kind, name: entry.name, notAfter, file, line, column });
    }
    this.#expiries = { hash: desired.hash, list: out };
    return out;
  }

  /** Milliseconds from the last reconciled file event to that reconcile's first write; null until one wrote. */
  get lastChangeToFirstWriteMs(): number | null {
    return this.#lastChangeToFirstWriteMs;
  }

  /** Objects the last reconcile read by ID before planning. */
  get lastTargetedReads(): number | null {
    return this.#lastTargetedReads;
  }

  /** The loop's `reconcile`. */
  readonly run = async (trigger: ReconcileTrigger, signal: AbortSignal): Promise<ReconcileVerdict> => {
    this.#runs += 1;
    // The executor names its own component; it gets the run's logger, not the reconciler's.
    const runLog = this.#options.logger.child({ run: this.#runs, trigger });
    const log = runLog.child({ component: 'reconciler' });
    const startedAt = this.#options.clock.now();
    const endTimer = this.#options.metrics.reconcileDuration.startTimer();
    // Whatever triggered it, a run loads the manifests after the pending file event: its writes apply that change.
    const changeEventAt = this.#options.takeChangeEventAt?.() ?? null;
    let outcome: Outcome;
    try {
      outcome = await this.#reconcile(log, runLog, signal, changeEventAt, trigger);
    } catch (err) {
      const code = err instanceof EdgesyncError ? err.code : 'unexpected';
      const message = err instanceof Error ? err.message : String(err);
      this.#lastError = { code, message, at: new Date(this.#options.clock.now()).toISOString() };
      log.error({ err, code }, 'reconcile failed');
      outcome = { result: 'failed', notReadyReason: `last reconcile failed: ${message}` };
    }
    endTimer();
    this.#recordRateLimitWait(log);
    const finishedAt = this.#options.clock.now();
    this.#lastReconcile = {
      trigger,
      result: outcome.result,
      startedAt: new Date(startedAt).toISOString(),
      finishedAt: new Date(finishedAt).toISOString(),
      durationMs: finishedAt - startedAt,
    };
    this.#options.metrics.reconciles.inc({ result: outcome.result });
    if (SUCCESS_RESULTS.includes(outcome.result)) {
      this.#lastSuccessAt = this.#lastReconcile.finishedAt;
      this.#lastError = null;
      this.#options.metrics.lastSuccess.set(finishedAt / 1000);
    }
    if (READY_RESULTS.includes(outcome.result)) {
      this.#ready = true;
    } else {
      this.#ready = false;
      this.#notReadyReason = outcome.notReadyReason;
    }
    const level =
      outcome.result === 'failed' ? 'error' : NOT_READY_WARNINGS.has(outcome.result) ? 'warn' : 'info';
    log[level](
      {
        result: outcome.result,
        durationMs: finishedAt - startedAt,
        // The plan JSON's summary (`put_module`): one casing in every field, nested ones included.
        summary: this.#lastPlan === null ? undefined : summaryToJson(this.#lastPlan.summary),
      },
      'reconcile finished',
    );
    return outcome.result === 'failed' || outcome.retry === true ? 'failed' : 'ok';
  };

  async #reconcile(
    log: Logger,
    runLog: Logger,
    signal: AbortSignal,
    changeEventAt: number | null,
    trigger: ReconcileTrigger,
  ): Promise<Outcome> {
    // A resync (the timer, SIGHUP) builds again every file whose entries reference others (a CA PEM, a secret
    // file), which raise no event of their own; every load re-reads only the manifest files whose bytes changed.
    if (trigger !== 'change') this.#memo.forgetResolvedReferences();
    const loaded = await loadDesiredState(this.#options.paths, {
      ...this.#options.load,
      kinds: this.#options.kinds,
      memo: this.#memo,
    });
    if (loaded.ok) {
      this.#lastValid = loaded.value;
      this.#manifestErrors = [];
      this.#logManifestsRead(log, loaded.value);
    } else {
      this.#manifestErrors = loaded.errors.map(toProblem);
      log.warn(
        { errors: this.#manifestErrors.length, first: this.#manifestErrors[0] },
        'manifests invalid; keeping the last valid desired state',
      );
    }
    this.#manifestsValid = loaded.ok;
    this.#options.metrics.manifestsValid.set(loaded.ok ? 1 : 0);
    this.#settled = this.#options.settling.observe(
      loaded.ok ? loaded.value.hash : null,
      this.#options.clock.now(),
    );
    const invalid: Outcome | null = loaded.ok
      ? null
      : { result: 'invalid', notReadyReason: `${loaded.errors.length} manifest error(s); see /status` };

    const desired = this.#lastValid;
    if (desired === null) {
      this.#lastPlan = null;
      return { ...(invalid ?? { result: 'failed', notReadyReason: 'no desired state' }), retry: true };
    }
    if (isForcedTrigger(trigger) && this.#options.forcedReads !== undefined) {
      const forced = this.#options.forcedReads;
      const named = namedModuleOnlyIds(this.#options.kinds, desired);
      // Foreground: background reads wait, and the forced read takes all the budget writes leave free.
      await this.#inForeground(() => forced.read(named, signal));
    }
    const { live, plan } = await this.#planFromCache(desired, signal, log);
    // The plan's metrics scan every live object and parse each CA's PEM: taken once the writes are done, not before the first.
    let metricsRecorded = false;
    const recordPlanMetrics = (): void => {
      if (metricsRecorded) return;
      metricsRecorded = true;
      this.#recordPlanMetrics(desired, live, plan);
    };
    try {
      return await this.#actOnPlan(desired, live, plan, invalid, {
        log,
        runLog,
        signal,
        changeEventAt,
        recordPlanMetrics,
      });
    } finally {
      recordPlanMetrics();
    }
  }

  /** What a reconcile does with its plan: report it, or apply it (enforce, nothing refused). */
  async #actOnPlan(
    desired: DesiredState,
    live: LiveState,
    plan: Plan,
    invalid: Outcome | null,
    run: {
      readonly log: Logger;
      readonly runLog: Logger;
      readonly signal: AbortSignal;
      readonly changeEventAt: number | null;
      readonly recordPlanMetrics: () => void;
    },
  ): Promise<Outcome> {
    const { log, runLog, signal, changeEventAt } = run;
    const planned: PlanRecord = {
      summary: plan.summary,
      changes: plan.changes.map((change) => change.address),
      errors: plan.errors.map(({ code, message }) => ({ code, message })),
      ...(plan.refusal ? { refusal: plan.refusal } : {}),
      applied: false,
    };
    this.#lastPlan = planned;
    this.#heldDeletes = [];
    this.#options.metrics.heldDeletes.set(0);

    // An entry the account will not let be applied stops only itself (and what waits for it).
    const confined = skipStuckEntries(plan);
    const rest = confined.plan;
    const stuck = this.#recordSkipped(confined.skipped, log);
    if (rest.errors.length > 0) {
      log.error({ errors: rest.errors }, 'plan has errors; nothing applied');
      const first = rest.errors[0]?.message ?? '';
      this.#setError('plan_error', first);
      return { result: 'failed', notReadyReason: `plan has errors: ${first}` };
    }
    if (rest.refusal && rest.refusal.code !== 'incomplete-read') {
      log.error(
        { refusal: rest.refusal },
        'plan refused by the safety rules; nothing applied (the daemon never forces)',
      );
      this.#setError(`plan_refused_${rest.refusal.code}`, rest.refusal.message);
      return invalid ?? { result: 'refused', notReadyReason: `plan refused: ${rest.refusal.message}` };
    }
    if (rest.actions.length === 0) return invalid ?? stuck ?? { result: 'in-sync', notReadyReason: null };

    for (const change of rest.changes) {
      log.info({ address: change.address, op: change.op, reason: change.reason }, 'drift');
    }
    if (this.#options.mode === 'observe')
      return invalid ?? stuck ?? { result: 'drift', notReadyReason: null };
    if (rest.refusal) {
      // incomplete-read is no person's decision: the next read is likely complete, so retry as after a failure.
      log.error({ refusal: rest.refusal }, 'live state incomplete; a plan with deletes is not applied');
      this.#setError('live_state_incomplete', rest.refusal.message);
      return { result: 'failed', notReadyReason: 'live listing incomplete' };
    }

    // A delete waits until the manifests have read the same over the settle period: a file half written.
    const settling = this.#settled;
    const { plan: now, held } = settling?.settled === true ? { plan: rest, held: [] } : holdDeletes(rest);
    const waiting: Outcome | null = held.length === 0 ? null : { result: 'settling', notReadyReason: null };
    if (held.length > 0) {
      this.#heldDeletes = held;
      this.#options.metrics.heldDeletes.set(held.length);
      const settlesAt = settling?.settlesAt ?? null;
      const inMs = settlesAt === null ? null : Math.max(0, settlesAt - this.#options.clock.now());
      log.info(
        { held: held.length, first: held[0], settlesInMs: inMs },
        inMs === null
          ? 'deletes wait until the manifests are valid again'
          : 'deletes wait for the manifests to settle (--settle)',
      );
      if (inMs !== null) this.#options.requestSettleCheck?.(inMs);
    }
    if (now.actions.length === 0)
      return invalid ?? stuck ?? waiting ?? { result: 'in-sync', notReadyReason: null };

    let firstWriteSeen = false;
    const applied = await this.#inForeground(() =>
      withPurpose('write', () =>
        executePlan(now, {
          api: this.#options.writer.writesApi((surprise) => {
            this.#options.metrics.cacheDrops.inc({ kind: surprise.kind });
            log.warn(
              surprise,
              'a write met what the cache did not hold; that kind is read in full before it is planned again',
            );
          }),
          signal,
          logger: runLog,
          concurrency: this.#options.concurrency ?? 4,
          kindByName: (name) => this.#kind(name),
          onProgress: (event) => {
            if (event.type === 'started' && !firstWriteSeen) {
              firstWriteSeen = true;
              if (changeEventAt !== null)
                this.#recordChangeToFirstWrite(this.#options.clock.now() - changeEventAt);
            }
            logProgress(log, event);
          },
        }),
      ),
    );
    run.recordPlanMetrics();
    await this.#readBackStale(namedModuleOnlyIds(this.#options.kinds, desired), signal);

    this.#lastPlan = { ...planned, applied: true };
    this.#lastApply = toApplyRecord(applied);
    if (!applySucceeded(applied)) {
      const first = this.#lastApply.failures[0];
      this.#setError('apply_incomplete', first ? `${first.action}: ${first.message}` : 'apply incomplete');
      return { result: 'failed', notReadyReason: `apply incomplete: ${applied.failed} failed` };
    }
    if (stuck === null && waiting === null) this.#recordOwnedAfterApply(desired, live);
    return invalid ?? stuck ?? waiting ?? { result: 'applied', notReadyReason: null };
  }

  /**
   * Reports the entries the plan skips (logged, counted by kind and reason,
   * kept for `/status`), and what the reconcile's outcome is when there are
   * some: `partial`, not ready until a person acts.
   */
  #recordSkipped(skipped: readonly SkippedEntry[], log: Logger): Outcome | null {
    const records = this.#skipped.record(skipped, new Date(this.#options.clock.now()).toISOString());
    const counts = new Map<string, { kind: string; reason: string; count: number }>();
    for (const entry of skipped) {
      log.warn(
        {
          kind: entry.kind,
          name: entry.name,
          reason: entry.reason,
          at: placeOf(entry),
          waitsFor: entry.waitsFor,
          detail: entry.message,
        },
        'entry skipped; the rest of the plan goes on',
      );
      const key = `${entry.kind}\u0000${entry.reason}`;
      const count = counts.get(key) ?? { kind: entry.kind, reason: entry.reason, count: 0 };
      count.count += 1;
      counts.set(key, count);
    }
    const gauge = this.#options.metrics.skippedEntries;
    gauge.reset();
    for (const { kind, reason, count } of counts.values()) gauge.set({ kind, reason }, count);
    if (records.length === 0) return null;
    const first = skipped[0];
    this.#setError('entries_skipped', first ? `${first.kind}.${first.name}: ${first.message}` : '');
    return { result: 'partial', notReadyReason: describeSkipped(records) };
  }

  /** The plan of a reconcile, from the cache, reading first what it touches (plan-from-cache.ts). */
  async #planFromCache(
    desired: DesiredState,
    signal: AbortSignal,
    log: Logger,
  ): Promise<{ readonly live: LiveState; readonly plan: Plan }> {
    const planOptions: PlanOptions = { ...this.#options.plan, context: 'daemon', kinds: this.#options.kinds };
    // The IP policies and endpoint configurations the manifests name, checked as `plan` checks them.
    if (this.#options.cache.kindsToRead().length > 0) this.#namedIds.forget();
    const missingNamedIds = await this.#inForeground(() =>
      withPurpose('targeted-read', () =>
        this.#namedIds.missing(this.#options.api, desired, this.#options.kinds, signal),
      ),
    );
    const planned = await planFromCache({
      plan: (live) => planChanges(desired, { ...live, missingNamedIds }, planOptions),
      named: namedModuleOnlyIds(this.#options.kinds, desired),
      cache: this.#options.cache,
      writer: this.#options.writer,
      inForeground: (work) => this.#inForeground(work),
      signal,
    });
    if (planned.fullRead !== null) {
      const { kinds, stats } = planned.fullRead;
      log.info({ kinds, requests: stats.requests, durationMs: Math.round(stats.durationMs) }, 'read in full');
    }
    this.#lastTargetedReads = planned.targetedReads;
    if (planned.targetedReads > 0)
      log.debug({ objects: planned.targetedReads }, 'read by ID before planning');
    return { live: planned.live, plan: planned.plan };
  }

  /**
   * Requests of a reconcile are foreground work: background full reads wait
   * while they run. Loading and planning, which send nothing, do not hold
   * them back.
   */
  async #inForeground<T>(work: () => Promise<T>): Promise<T> {
    const release = this.#options.readShare.holdBackground();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /**
   * Module writes answer with the module, not the object: the objects they
   * changed are read back now, so the cache is whole again before the next
   * change (and an idle daemon spends nothing on them later).
   */
  async #readBackStale(named: NamedModuleOnly, signal: AbortSignal): Promise<void> {
    const stale = this.#options.cache.staleIds();
    if (stale.size === 0 || signal.aborted) return;
    // A failed read-back leaves them stale: the next reconcile reads them before it plans.
    await this.#inForeground(() =>
      withPurpose('targeted-read', () => this.#options.writer.readTargets(stale, named, signal)),
    );
  }

  /**
   * Which directories the manifests came from, as validate, plan and apply
   * say it: at start, on SIGHUP, and whenever it changes (a directory added,
   * a symlink skipped), so a YAML file in an unexpected place shows.
   */
  #logManifestsRead(log: Logger, desired: DesiredState): void {
    const read = manifestsReadToJson(manifestsRead(desired, this.#options.paths, false));
    const said = JSON.stringify(read);
    if (said === this.#saidManifestsRead) return;
    this.#saidManifestsRead = said;
    log.info(read, 'manifests read');
  }

  #recordChangeToFirstWrite(ms: number): void {
    this.#lastChangeToFirstWriteMs = ms;
    this.#options.metrics.changeToFirstWrite.observe(ms / 1000);
  }

  #kind(name: KindName): Kind {
    const kind = this.#kindByName.get(name);
    // A plan names only kinds of the registry it was made with.
    if (kind === undefined) throw new Error(`no kind named ${JSON.stringify(name)} in the daemon's registry`);
    return kind;
  }

  #setError(code: string, message: string): void {
    this.#lastError = { code, message, at: new Date(this.#options.clock.now()).toISOString() };
  }

  #recordPlanMetrics(desired: DesiredState, live: LiveState, plan: Plan): void {
    const owned: Record<KindName, number> = {};
    const drifted: Record<KindName, number> = {};
    for (const kind of this.#options.kinds) {
      const objects = live.objects[kind.name] ?? [];
      owned[kind.name] =
        kind.ownership === 'metadata'
          ? objects.filter((object) => object.marker?.owner === this.#options.plan.owner).length
          : desired.entries.filter(
              (entry) => entry.kind === kind.name && objects.some((o) => o.id === entry.id),
            ).length;
      drifted[kind.name] = 0;
    }
    // Objects, not changes: an edge with three module changes is one drifted edge.
    const driftedObjects = new Set(plan.changes.map((change) => `${change.kind}\u0000${change.name}`));
    for (const object of driftedObjects) {
      const kind = object.slice(0, object.indexOf('\u0000')) as KindName;
      drifted[kind] = (drifted[kind] ?? 0) + 1;
    }
    WatchMetrics.setByKind(this.#options.metrics.ownedObjects, owned);
    WatchMetrics.setByKind(this.#options.metrics.driftedObjects, drifted);
    this.#recordExpiries(desired, live);
  }

  /**
   * When each managed object of a kind that expires (`Kind.expiry`: a CA's
   * certificate) stops working, labelled with its live ID ('' before it exists).
   */
  #recordExpiries(desired: DesiredState, live: LiveState): void {
    for (const kind of this.#options.kinds) {
      const gauge = this.#options.metrics.expirations.get(kind.name);
      if (kind.expiry === undefined || gauge === undefined) continue;
      gauge.reset();
      const objects = live.objects[kind.name] ?? [];
      for (const entry of desired.entries) {
        if (entry.kind !== kind.name) continue;
        const notAfter = kind.expiry.notAfter(entry.spec);
        if (notAfter === undefined) continue;
        const object = objects.find((candidate) =>
          entry.id === undefined
            ? candidate.marker?.owner === this.#options.plan.owner && candidate.marker.name === entry.name
            : candidate.id === entry.id,
        );
        gauge.set({ name: entry.name, id: object?.id ?? '' }, notAfter / 1000);
      }
    }
  }

  /** After a complete apply the account holds exactly the desired entries (bar module-only edges that are missing). */
  #recordOwnedAfterApply(desired: DesiredState, live: LiveState): void {
    const owned: Record<KindName, number> = {};
    for (const kind of this.#options.kinds) {
      owned[kind.name] = desired.entries.filter(
        (entry) =>
          entry.kind === kind.name && !(entry.id !== undefined && live.missingIds.includes(entry.id)),
      ).length;
    }
    WatchMetrics.setByKind(this.#options.metrics.ownedObjects, owned);
  }

  /**
   * A run held back by the request budget writes nothing while it waits, which
   * from outside looks like a change that was dropped; the warning says why.
   */
  #recordRateLimitWait(log: Logger): void {
    const waitedMs = this.#options.api.stats().rateLimitWaitMs;
    if (waitedMs > this.#rateLimitWaitMs) {
      const runWaitedMs = waitedMs - this.#rateLimitWaitMs;
      this.#options.metrics.rateLimitWaitSeconds.inc(runWaitedMs / 1000);
      this.#rateLimitWaitMs = waitedMs;
      log.warn(
        { waitedMs: Math.round(runWaitedMs) },
        'reconcile waited for the request budget (--rate-limit or a 429 Retry-After); changes made meanwhile go to the follow-up run',
      );
    }
  }
}

/** Module-only kinds are read by GET for the IDs the manifests name; other kinds are listed whole. */
function namedModuleOnlyIds(kinds: readonly Kind[], desired: DesiredState): Map<KindName, string[]> {
  const ids = new Map<KindName, string[]>();
  for (const kind of kinds) {
    if (kind.ownership !== 'modules-only') continue;
    ids.set(
      kind.name,
      desired.entries.flatMap((entry) => (entry.kind === kind.name && entry.id ? [entry.id] : [])),
    );
  }
  return ids;
}

function logProgress(log: Logger, event: ProgressEvent): void {
  if (event.type !== 'finished') return;
  const { key, outcome, id, error, reason } = event.result;
  const fields = {
    action: key,
    op: event.action.op,
    kind: event.action.kind,
    name: event.action.name,
    outcome,
    id,
  };
  if (outcome === 'done') log.info(fields, 'action finished');
  else log.warn({ ...fields, error, reason }, 'action not applied');
}

function toProblem(error: ManifestError): ManifestProblem {
  return {
    file: error.file,
    line: error.line ?? null,
    column: error.column ?? null,
    path: error.path,
    message: error.detail,
  };
}

function toApplyRecord(result: ApplyResult): ApplyRecord {
  return {
    done: result.done,
    failed: result.failed,
    skipped: result.skipped,
    notStarted: result.notStarted,
    interrupted: result.interrupted,
    failures: result.actions.flatMap((action) =>
      action.error ? [{ action: action.key, message: action.error.message }] : [],
    ),
  };
}
