import type { ActionResult } from '../../apply/apply-result.js';
import type { KindName } from '../../kinds/kind-name.js';
import type { LiveState } from '../../kinds/live-state.js';
import type { DesiredEntry, DesiredState } from '../../manifest/desired-state.js';
import type { ObservedExpiry } from '../../notify/notification-tracker.js';
import type { ResourceChange } from '../../plan/plan.js';
import type { Difference } from '../../sync-state.js';
import type {
  ApplyRecord,
  LastReconcile,
  ManifestProblem,
  PlanRecord,
  RunMode,
  SkippedEntryRecord,
} from '../daemon-status.js';
import type { ReconcileTrigger } from '../reconcile-loop.js';
import type { ReconcileResult } from '../watch-metrics.js';
import type { FileEvent, TrackedDelete } from './desired-settling.js';
import type { InSyncLedger } from './in-sync-ledger.js';

/** What one run of the reconcile is given when it starts. */
export interface RunInput {
  readonly trigger: ReconcileTrigger;
  /**
   * `enforce` applies the plan; `observe`, and `suspended` while the daemon
   * is, only plan and report; read at the start of each run.
   */
  readonly mode: RunMode;
  /** The commit of the manifests checkout, read before the files; null outside a checkout. */
  readonly commit: string | null;
  /** Clock milliseconds of the first file event this run reconciles; null when none is pending. */
  readonly changeEventAt: number | null;
  /** The file events this run takes in, each path at its last event (the settle clocks count from them). */
  readonly fileEvents: readonly FileEvent[];
}

/** A problem the daemon reports as `/status` `last_error`. */
export interface ErrorRecord {
  readonly code: string;
  readonly message: string;
  /** RFC 3339. */
  readonly at: string;
}

/** How one run ended, as the loop and the readiness read it. */
export interface RunOutcome {
  readonly result: ReconcileResult;
  /** Why the daemon is not ready after it; null when the result leaves it ready. */
  readonly notReadyReason: string | null;
  /**
   * Retry with backoff rather than wait for a change or the resync: a
   * failure, or invalid manifests before any valid set was seen (a git-sync
   * sidecar that has not finished its first clone).
   */
  readonly retry: boolean;
  /** The last problem the run met, which becomes `last_error` unless the run succeeded. */
  readonly error: ErrorRecord | null;
}

/** What the run itself did, apart from what it left the daemon knowing: the facts counters and logs are made of. */
export interface RunRecord {
  readonly input: RunInput;
  readonly outcome: RunOutcome;
  /** Clock milliseconds. */
  readonly startedAt: number;
  readonly finishedAt: number;
  /** From `input.changeEventAt` to the run's first write, milliseconds; null when it wrote nothing or no file event was pending. */
  readonly changeToFirstWriteMs: number | null;
  /** Objects read by ID before planning; null when the run did not plan. */
  readonly targetedReads: number | null;
  /** Milliseconds the run waited for the request budget or a Retry-After. */
  readonly rateLimitWaitMs: number;
  /** Kinds a write of this run met what the cache did not hold: each is read in full before it is planned again. */
  readonly cacheSurprises: readonly KindName[];
  /** When held deletes may go, clock milliseconds from the run's end; null when it held none. */
  readonly settleCheckInMs: number | null;
  /** Changes the run applied whole, by the state they were in: what came from Git, and what it put back after drift. */
  readonly appliedChanges: { readonly pending: number; readonly drift: number };
  /** Addresses of the drift changes the run applied whole: what a drift_corrected notification names. */
  readonly correctedDrift: readonly string[];
}

/** The manifests as the last load left them. */
export interface ManifestsRecord {
  /** null until the first load. */
  readonly valid: boolean | null;
  readonly problems: readonly ManifestProblem[];
  /** The last valid desired state, kept while the files are invalid; null until one loaded. */
  readonly desired: DesiredState | null;
  /** What the last `manifests read` log line said: said again when it changes, and on a forced re-read. */
  readonly said: string | null;
  /** The real path of each file of `desired`, by the name the loader gives it. */
  readonly realPaths: ReadonlyMap<string, string>;
}

/** The settle period and what the last loads and plans made of it. */
export interface SettleRecord {
  /** --settle, milliseconds. */
  readonly periodMs: number;
  /** --settle-max, milliseconds. */
  readonly maxMs: number;
  /** The hash the last load read; null when it did not load. */
  readonly hash: string | null;
  /** No delete of the last plan waits. */
  readonly settled: boolean;
  /** Clock milliseconds of the first load that read the desired state as it is; null while invalid. */
  readonly since: number | null;
  /** Clock milliseconds at which the next held delete may go; null when none waits, or none can yet. */
  readonly settlesAt: number | null;
  /** Addresses of the changes whose DELETE (or what waits for one) the last plan held back. */
  readonly heldDeletes: readonly string[];
  /** Every delete the last plan asked for, with its settle clock (desired-settling.ts). */
  readonly tracked: readonly TrackedDelete[];
  /** Deletes held longer than --settle-max for another reason than files changing (invalid manifests). */
  readonly overdue: readonly TrackedDelete[];
}

/** Which commit of the manifests checkout is live, after Flux's `lastAppliedRevision`. */
export interface GitRecord {
  /** The commit the last run read its files from; null outside a checkout. */
  readonly checkoutCommit: string | null;
  /** The commit of the last run that left the account as its files say. */
  readonly lastAppliedCommit: string | null;
  /** RFC 3339. */
  readonly lastAppliedAt: string | null;
}

/** An object of a kind that says when its objects stop working (`Kind.expiry`), labelled as its metric is. */
export interface ExpiringObject {
  readonly kind: KindName;
  readonly name: string;
  /** The live ID; '' before the object exists. */
  readonly id: string;
  /** Milliseconds since the epoch. */
  readonly notAfter: number;
}

/** Objects by kind, as the last plan saw them. */
export interface ObjectCounts {
  /** Live objects this owner manages. */
  readonly owned: Readonly<Record<KindName, number>>;
  /** Objects with a change in the plan: an edge with three module changes is one. */
  readonly drifted: Readonly<Record<KindName, number>>;
  readonly expiring: readonly ExpiringObject[];
}

/**
 * What still differs from the manifests after the last run that planned, in
 * the one vocabulary (src/sync-state.ts): the change addresses left pending
 * (Git asks for them), drifted (the account moved under an unchanged entry)
 * or held (a delete waiting to settle), and the entries skipped (`kind.name`).
 * A change the run applied whole is in none of them.
 */
export type DifferencesRecord = Readonly<Record<Difference, readonly string[]>>;

/** No difference: before the first plan, and after a run that left the account as the manifests say. */
export const NO_DIFFERENCES: DifferencesRecord = { pending: [], drift: [], held: [], skipped: [] };

/** The last plan, whole: what the per-object inventory is derived from. */
export interface PlannedRecord {
  /** What `/status` shows of it. */
  readonly summary: PlanRecord;
  /** The plan's changes, with their field-level differences; shared with the plan, never copied. */
  readonly changes: readonly ResourceChange[];
  /** The live state it was made from: the cache's snapshot, whose objects the cache shares. */
  readonly live: LiveState;
  /** The desired state it was made from. */
  readonly desired: DesiredState;
  /** The run that made it (`runs` of its record), and when that run finished, RFC 3339: what the inventory is as of. */
  readonly run: number;
  readonly finishedAt: string;
  /** The actions of its apply that were done (the IDs creates got, the objects deletes removed); [] when none was applied. */
  readonly appliedActions: readonly ActionResult[];
}

/**
 * What the daemon knows after a run: made once per run, from the record
 * before it and what the run's stages returned (record-run.ts), and never
 * changed. The daemon replaces its current record with it; `/status`, the
 * status page, the metrics, the notifications and the loop read records
 * only, never a run in progress. What did not change is the previous
 * record's own value: a record holds the desired and live states it was
 * made from, shared with the cache and the loader, not copies.
 */
export interface ReconcileRecord {
  /** Runs so far: 0 in the record the daemon starts with. */
  readonly runs: number;
  /** The last run; null before the first. */
  readonly run: RunRecord | null;
  /** The last run as `/status` shows it. */
  readonly lastReconcile: LastReconcile | null;
  readonly ready: boolean;
  readonly notReadyReason: string | null;
  /** RFC 3339; the last run that left the account as the manifests say (observe: that planned). */
  readonly lastSuccessAt: string | null;
  readonly lastError: ErrorRecord | null;
  readonly manifests: ManifestsRecord;
  readonly settle: SettleRecord;
  /** The last plan; null before one, and after a load that left no desired state. */
  readonly plan: PlannedRecord | null;
  readonly skippedEntries: readonly SkippedEntryRecord[];
  /** What still differs after the last run that planned, by state. */
  readonly differences: DifferencesRecord;
  readonly apply: ApplyRecord | null;
  readonly objects: ObjectCounts | null;
  /** Each entry of the last valid manifests that expires, with its place (the notifications' input). */
  readonly expiries: { readonly hash: string; readonly list: readonly ObservedExpiry[] } | null;
  readonly git: GitRecord;
  /** The last targeted read's count and change-to-first-write time, kept until a run has new ones. */
  readonly lastTargetedReads: number | null;
  readonly lastChangeToFirstWriteMs: number | null;
  /** The client's total wait for the budget at the end of the last run, milliseconds. */
  readonly rateLimitWaitMs: number;
  /**
   * Whether `entry`'s desired state is the one the account had matched when
   * this record's run began: what tells drift from pending
   * (src/sync-state.ts), for a difference the run left and for a change it
   * applied alike. What the run itself matched counts from the next record.
   */
  readonly desiredUnchangedSinceInSync: (entry: DesiredEntry) => boolean;
}

/** The record a daemon starts with: nothing loaded, planned or applied. */
export function firstRecord(
  settle: { readonly periodMs: number; readonly maxMs: number },
  ledger: InSyncLedger,
): ReconcileRecord {
  return {
    runs: 0,
    run: null,
    lastReconcile: null,
    ready: false,
    notReadyReason: 'no reconcile has finished yet',
    lastSuccessAt: null,
    lastError: null,
    manifests: { valid: null, problems: [], desired: null, said: null, realPaths: new Map() },
    settle: {
      periodMs: settle.periodMs,
      maxMs: settle.maxMs,
      hash: null,
      settled: false,
      since: null,
      settlesAt: null,
      heldDeletes: [],
      tracked: [],
      overdue: [],
    },
    plan: null,
    skippedEntries: [],
    differences: NO_DIFFERENCES,
    apply: null,
    objects: null,
    expiries: null,
    git: { checkoutCommit: null, lastAppliedCommit: null, lastAppliedAt: null },
    lastTargetedReads: null,
    lastChangeToFirstWriteMs: null,
    rateLimitWaitMs: 0,
    desiredUnchangedSinceInSync: ledger.asOf(0),
  };
}
