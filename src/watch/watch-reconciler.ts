import type { Logger } from 'pino';
import type { EdgeApi } from '../api/edge-api.js';
import { type ApplyResult, applySucceeded } from '../apply/apply-result.js';
import { executePlan, type ProgressEvent } from '../apply/execute-plan.js';
import { EdgesyncError } from '../errors.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveState } from '../kinds/live-state.js';
import { KINDS, kindByName } from '../kinds/registry.js';
import type { DesiredState } from '../manifest/desired-state.js';
import { type LoadOptions, loadDesiredState } from '../manifest/load-desired-state.js';
import type { ManifestError } from '../manifest/manifest-error.js';
import type { Plan } from '../plan/plan.js';
import type { PlanOptions } from '../plan/planner-options.js';
import { readAndPlan } from '../plan-session/prepare-plan.js';
import type { DaemonClock } from './daemon-clock.js';
import {
  type ApplyRecord,
  type DaemonStatus,
  type ManifestProblem,
  type PlanRecord,
  READY_RESULTS,
  type ReconcileRecord,
  type WatchMode,
} from './daemon-status.js';
import type { ReconcileTrigger, ReconcileVerdict } from './reconcile-loop.js';
import { type ReconcileResult, WatchMetrics } from './watch-metrics.js';

export interface WatchReconcilerOptions {
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

  constructor(options: WatchReconcilerOptions) {
    this.#options = options;
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
    };
  }

  /** The loop's `reconcile`. */
  readonly run = async (trigger: ReconcileTrigger, signal: AbortSignal): Promise<ReconcileVerdict> => {
    this.#runs += 1;
    // The executor names its own component; it gets the run's logger, not the reconciler's.
    const runLog = this.#options.logger.child({ run: this.#runs, trigger });
    const log = runLog.child({ component: 'reconciler' });
    const startedAt = this.#options.clock.now();
    const endTimer = this.#options.metrics.reconcileDuration.startTimer();
    let outcome: Outcome;
    try {
      outcome = await this.#reconcile(log, runLog, signal);
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
    if (READY_RESULTS.includes(outcome.result)) {
      this.#ready = true;
      this.#lastSuccessAt = this.#lastReconcile.finishedAt;
      this.#lastError = null;
      this.#options.metrics.lastSuccess.set(finishedAt / 1000);
    } else {
      this.#ready = false;
      this.#notReadyReason = outcome.notReadyReason;
    }
    log.info(
      { result: outcome.result, durationMs: finishedAt - startedAt, summary: this.#lastPlan?.summary },
      'reconcile finished',
    );
    return outcome.result === 'failed' || outcome.retry === true ? 'failed' : 'ok';
  };

  async #reconcile(log: Logger, runLog: Logger, signal: AbortSignal): Promise<Outcome> {
    const loaded = await loadDesiredState(this.#options.paths, this.#options.load);
    if (loaded.ok) {
      this.#lastValid = loaded.value;
      this.#manifestErrors = [];
    } else {
      this.#manifestErrors = loaded.errors.map(toProblem);
      log.warn(
        { errors: this.#manifestErrors.length, first: this.#manifestErrors[0] },
        'manifests invalid; keeping the last valid desired state',
      );
    }
    this.#manifestsValid = loaded.ok;
    this.#options.metrics.manifestsValid.set(loaded.ok ? 1 : 0);
    const invalid: Outcome | null = loaded.ok
      ? null
      : { result: 'invalid', notReadyReason: `${loaded.errors.length} manifest error(s); see /status` };

    const desired = this.#lastValid;
    if (desired === null) {
      this.#lastPlan = null;
      return { ...(invalid ?? { result: 'failed', notReadyReason: 'no desired state' }), retry: true };
    }
    const { live, plan } = await readAndPlan(desired, this.#options.api, {
      plan: { ...this.#options.plan, context: 'daemon' },
      signal,
    });
    this.#recordPlanMetrics(desired, live, plan);
    const planned: PlanRecord = {
      summary: plan.summary,
      changes: plan.changes.map((change) => change.address),
      errors: plan.errors.map(({ code, message }) => ({ code, message })),
      ...(plan.refusal ? { refusal: plan.refusal } : {}),
      applied: false,
    };
    this.#lastPlan = planned;

    if (plan.errors.length > 0) {
      log.error({ errors: plan.errors }, 'plan has errors; nothing applied');
      const first = plan.errors[0]?.message ?? '';
      this.#setError('plan_error', first);
      return { result: 'failed', notReadyReason: `plan has errors: ${first}` };
    }
    if (plan.refusal && plan.refusal.code !== 'incomplete-read') {
      log.error(
        { refusal: plan.refusal },
        'plan refused by the safety rules; nothing applied (the daemon never forces)',
      );
      this.#setError(`plan_refused_${plan.refusal.code}`, plan.refusal.message);
      return invalid ?? { result: 'refused', notReadyReason: `plan refused: ${plan.refusal.message}` };
    }
    if (plan.actions.length === 0) return invalid ?? { result: 'in-sync', notReadyReason: null };

    for (const change of plan.changes) {
      log.info({ address: change.address, op: change.op, reason: change.reason }, 'drift');
    }
    if (this.#options.mode === 'observe') return invalid ?? { result: 'drift', notReadyReason: null };
    if (plan.refusal) {
      // incomplete-read is no person's decision: the next read is likely complete, so retry as after a failure.
      log.error({ refusal: plan.refusal }, 'live state incomplete; a plan with deletes is not applied');
      this.#setError('live_state_incomplete', plan.refusal.message);
      return { result: 'failed', notReadyReason: 'live listing incomplete' };
    }

    const applied = await executePlan(plan, {
      api: this.#options.api,
      signal,
      logger: runLog,
      concurrency: this.#options.concurrency ?? 4,
      kindByName,
      onProgress: (event) => logProgress(log, event),
    });
    this.#lastPlan = { ...planned, applied: true };
    this.#lastApply = toApplyRecord(applied);
    if (!applySucceeded(applied)) {
      const first = this.#lastApply.failures[0];
      this.#setError('apply_incomplete', first ? `${first.action}: ${first.message}` : 'apply incomplete');
      return { result: 'failed', notReadyReason: `apply incomplete: ${applied.failed} failed` };
    }
    this.#recordOwnedAfterApply(desired, live);
    return invalid ?? { result: 'applied', notReadyReason: null };
  }

  #setError(code: string, message: string): void {
    this.#lastError = { code, message, at: new Date(this.#options.clock.now()).toISOString() };
  }

  #recordPlanMetrics(desired: DesiredState, live: LiveState, plan: Plan): void {
    const owned: Partial<Record<KindName, number>> = {};
    const drifted: Partial<Record<KindName, number>> = {};
    for (const kind of KINDS) {
      const objects = live.objects[kind.name];
      owned[kind.name] =
        kind.ownership === 'metadata'
          ? objects.filter((object) => object.marker?.owner === this.#options.plan.owner).length
          : desired.entries.filter(
              (entry) => entry.kind === kind.name && objects.some((o) => o.id === entry.id),
            ).length;
      drifted[kind.name] = 0;
    }
    for (const change of plan.changes) drifted[change.kind] = (drifted[change.kind] ?? 0) + 1;
    WatchMetrics.setByKind(this.#options.metrics.ownedObjects, owned);
    WatchMetrics.setByKind(this.#options.metrics.driftedObjects, drifted);
  }

  /** After a complete apply the account holds exactly the desired entries (bar module-only edges that are missing). */
  #recordOwnedAfterApply(desired: DesiredState, live: LiveState): void {
    const owned: Partial<Record<KindName, number>> = {};
    for (const kind of KINDS) {
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
  if (outcome === 'done') log.info(fields, 'action done');
  else log.warn({ ...fields, error, reason }, 'action not done');
}

function toProblem(error: ManifestError): ManifestProblem {
  return {
    file: error.file,
    line: error.line,
    column: error.column,
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
