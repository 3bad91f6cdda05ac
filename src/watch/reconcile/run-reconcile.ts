import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { applySucceeded } from '../../apply/apply-result.js';
import { EdgesyncError } from '../../errors.js';
import type { KindName } from '../../kinds/kind-name.js';
import type { DesiredEntry, DesiredState } from '../../manifest/desired-state.js';
import type { Plan } from '../../plan/plan.js';
import { summaryToJson } from '../../plan/render-json.js';
import type { DaemonClock } from '../daemon-clock.js';
import { isForcedTrigger, type ReconcileVerdict } from '../reconcile-loop.js';
import type { ReconcileResult } from '../watch-metrics.js';
import { type AppliedRun, type ApplyTarget, applyStage } from './apply-stage.js';
import {
  changedFiles,
  type DeleteSettling,
  desiredSince,
  entryPlaces,
  settleDeletes,
} from './desired-settling.js';
import type { InSyncLedger } from './in-sync-ledger.js';
import { loadManifests, type ManifestSource } from './load-manifests.js';
import { namedModuleOnlyIds, type PlanSource, planStage } from './plan-stage.js';
import type { ManifestsRecord, ReconcileRecord, RunInput, RunOutcome } from './reconcile-record.js';
import { type RunFacts, recordRun } from './record-run.js';
import { logSetAside, setAside } from './set-aside.js';

/** Results that leave the daemon not ready without failing: logged at warn (a failure at error). */
const NOT_READY_WARNINGS: ReadonlySet<ReconcileResult> = new Set(['refused', 'invalid', 'partial']);

/** What every run is made with: the stages' sources and targets, and the daemon's own. */
export interface ReconcileParts extends ManifestSource, PlanSource, ApplyTarget {
  readonly clock: DaemonClock;
  readonly logger: Logger;
  /** --settle and --settle-max, milliseconds. */
  readonly settlePeriodMs: number;
  readonly settleMaxMs: number;
  /** Which entries the account has matched, and since when. */
  readonly ledger: InSyncLedger;
}

/** What the stages of one run returned, filled in as each returns: what a failure leaves is recorded too. */
type Reached = { -readonly [Key in keyof Omit<RunFacts, 'input' | 'outcome'>]?: RunFacts[Key] };

/**
 * One reconcile, as stages that hand values forward: load the manifests,
 * settle, plan from the cache, set aside what cannot be applied, apply,
 * record. Returns the record that follows `previous`; it throws nothing: a
 * failure anywhere is the record's outcome, and what the stages before it
 * returned is recorded as well.
 */
export async function runReconcile(
  parts: ReconcileParts,
  previous: ReconcileRecord,
  input: RunInput,
  signal: AbortSignal,
): Promise<ReconcileRecord> {
  // The executor names its own component; it gets the run's logger, not the reconciler's.
  const runLog = parts.logger.child({ run: previous.runs + 1, trigger: input.trigger });
  const log = runLog.child({ component: 'reconciler' });
  const startedAt = parts.clock.now();
  const reached: Reached = {};
  let outcome: RunOutcome;
  try {
    outcome = await throughStages(parts, previous, input, signal, { run: runLog, reconciler: log }, reached);
  } catch (err) {
    const code = err instanceof EdgesyncError ? err.code : 'unexpected';
    const message = err instanceof Error ? err.message : String(err);
    log.error({ err, code }, 'reconcile failed');
    const at = new Date(parts.clock.now()).toISOString();
    outcome = {
      result: 'failed',
      notReadyReason: `last reconcile failed: ${message}`,
      retry: false,
      error: { code, message, at },
    };
  }
  const rateLimitWaitMs = parts.api.stats().rateLimitWaitMs;
  logRateLimitWait(log, rateLimitWaitMs - previous.rateLimitWaitMs);
  const facts = { input, outcome, startedAt, finishedAt: parts.clock.now(), rateLimitWaitMs, ...reached };
  const record = recordRun(
    { kinds: parts.kinds, owner: parts.plan.owner, ledger: parts.ledger },
    previous,
    facts,
  );
  logFinished(log, record, outcome);
  return record;
}

/** What the loop makes of a record: retry with backoff after a failure, else wait for the next change or resync. */
export function verdictOf(record: ReconcileRecord): ReconcileVerdict {
  const outcome = record.run?.outcome;
  return outcome === undefined || outcome.result === 'failed' || outcome.retry ? 'failed' : 'ok';
}

async function throughStages(
  parts: ReconcileParts,
  previous: ReconcileRecord,
  input: RunInput,
  signal: AbortSignal,
  logs: { readonly run: Logger; readonly reconciler: Logger },
  reached: Reached,
): Promise<RunOutcome> {
  const manifests = await loadManifests(parts, previous.manifests, input.trigger, logs.reconciler);
  reached.manifests = manifests;
  const valid = manifests.valid === true;
  const loadedHash = valid ? (manifests.desired?.hash ?? null) : null;
  const since = desiredSince(previous.settle, loadedHash, parts.clock.now());
  reached.settling = { hash: loadedHash, since, deletes: null };
  const invalid: RunOutcome | null = valid
    ? null
    : {
        result: 'invalid',
        notReadyReason: `${manifests.problems.length} manifest error(s); see /status`,
        retry: false,
        error: null,
      };
  const desired = manifests.desired;
  if (desired === null) {
    const nothing: RunOutcome = {
      result: 'failed',
      notReadyReason: 'no desired state',
      retry: true,
      error: null,
    };
    return { ...(invalid ?? nothing), retry: true };
  }
  const planned = await planStage(parts, desired, isForcedTrigger(input.trigger), signal, logs.reconciler);
  reached.planned = { ...planned, desired };
  const now = parts.clock.now();
  const deletes = settleStage(parts, previous, { manifests, since }, input, planned.plan, now);
  reached.settling = { hash: loadedHash, since, deletes };
  logSettled(logs.reconciler, deletes, parts);
  const aside = setAside({
    plan: planned.plan,
    mode: input.mode,
    due: deletes.due,
    invalid,
    skippedBefore: previous.skippedEntries,
    at: new Date(now).toISOString(),
    unchangedSinceInSync: unchangedSinceInSync(parts.ledger.asOf(previous.runs), desired),
  });
  reached.aside = aside;
  logSetAside(logs.reconciler, aside, deletes.nextAt === null ? null : Math.max(0, deletes.nextAt - now));
  if (aside.toApply === null) return aside.outcome;
  const applied = await applyStage(
    parts,
    aside.toApply,
    namedModuleOnlyIds(parts.kinds, desired),
    signal,
    logs,
  );
  reached.applied = applied;
  return afterApply(aside.outcome, applied, new Date(parts.clock.now()).toISOString());
}

/**
 * The settle stage (desired-settling.ts): which deletes of the plan may go,
 * from the file events this run takes in and where the entries are. What
 * the load read changed with no event to say where counts as a change of
 * the files whose entries differ.
 */
function settleStage(
  parts: ReconcileParts,
  previous: ReconcileRecord,
  loaded: { readonly manifests: ManifestsRecord; readonly since: number | null },
  input: RunInput,
  plan: Plan,
  now: number,
): DeleteSettling {
  const { manifests } = loaded;
  const valid = manifests.valid === true;
  const hash = valid ? (manifests.desired?.hash ?? null) : null;
  const realPath = (file: string): string =>
    manifests.realPaths.get(file) ?? previous.manifests.realPaths.get(file) ?? resolve(parts.cwd, file);
  const unexplained =
    valid && manifests.desired !== null && previous.settle.hash !== null && hash !== previous.settle.hash;
  const events =
    unexplained && input.fileEvents.length === 0 && manifests.desired !== null
      ? changedFiles(previous.manifests.desired, manifests.desired, realPath, now)
      : input.fileEvents;
  return settleDeletes({
    plan,
    previous: previous.settle.tracked,
    events,
    valid,
    desiredSince: loaded.since,
    places: entryPlaces(manifests.desired, previous.manifests.desired, realPath),
    now,
    periodMs: parts.settlePeriodMs,
    maxMs: parts.settleMaxMs,
  });
}

/** Says why a delete goes although files keep changing, and which are held past the bound and why. */
function logSettled(log: Logger, deletes: DeleteSettling, parts: ReconcileParts): void {
  if (deletes.dueAtMax.length > 0) {
    log.info(
      {
        deletes: deletes.dueAtMax.map((tracked) => tracked.address),
        settleMaxMs: parts.settleMaxMs,
        lastChangeAt: new Date(
          Math.max(...deletes.dueAtMax.map((tracked) => tracked.changedAt)),
        ).toISOString(),
      },
      'deletes sent at --settle-max: their entries have been absent from every read that long, though files that could hold them kept changing',
    );
  }
  if (deletes.overdue.length > 0) {
    log.warn(
      {
        deletes: deletes.overdue.map((tracked) => tracked.address),
        settleMaxMs: parts.settleMaxMs,
        reason: 'the manifests do not read valid',
      },
      'deletes held past --settle-max: they go once the manifests read valid',
    );
  }
}

/** A run that applied: what the set-aside stage foresaw, unless an action did not go. */
function afterApply(foreseen: RunOutcome, applied: AppliedRun, at: string): RunOutcome {
  if (applySucceeded(applied.result)) return foreseen;
  const first = applied.record.failures[0];
  const message = first ? `${first.action}: ${first.message}` : 'apply incomplete';
  return {
    result: 'failed',
    notReadyReason: `apply incomplete: ${applied.result.failed} failed`,
    retry: false,
    error: { code: 'apply_incomplete', message, at },
  };
}

/**
 * A run held back by the request budget writes nothing while it waits, which
 * from outside looks like a change that was dropped; the warning says why.
 */
function logRateLimitWait(log: Logger, waitedMs: number): void {
  if (waitedMs <= 0) return;
  log.warn(
    { waitedMs: Math.round(waitedMs) },
    'reconcile waited for the request budget (--rate-limit or a 429 Retry-After); changes made meanwhile go to the follow-up run',
  );
}

function logFinished(log: Logger, record: ReconcileRecord, outcome: RunOutcome): void {
  const level =
    outcome.result === 'failed' ? 'error' : NOT_READY_WARNINGS.has(outcome.result) ? 'warn' : 'info';
  log[level](
    {
      result: outcome.result,
      durationMs: record.lastReconcile?.durationMs,
      // The plan JSON's summary (`put_module`): one casing in every field, nested ones included.
      summary: record.plan === null ? undefined : summaryToJson(record.plan.summary.summary),
    },
    'reconcile finished',
  );
}

/**
 * Whether an entry of `desired` is the one the account last matched before
 * this run: the ledger as of the end of the previous run (not the previous
 * record's own view, which is as of that run's start), since what this run
 * matches must not turn its own plan's changes into drift.
 */
function unchangedSinceInSync(
  matchedBefore: (entry: DesiredEntry) => boolean,
  desired: DesiredState,
): (kind: KindName, name: string) => boolean {
  // Made on the first question: a run whose plan has no change asks none, and an account of 100,000 entries pays nothing.
  let byName: Map<string, DesiredState['entries'][number]> | undefined;
  return (kind, name) => {
    byName ??= new Map(desired.entries.map((entry) => [`${entry.kind}\u0000${entry.name}`, entry]));
    const entry = byName.get(`${kind}\u0000${name}`);
    return entry !== undefined && matchedBefore(entry);
  };
}
