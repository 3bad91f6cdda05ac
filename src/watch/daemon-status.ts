import { renameKeysDeep, snakeCaseKey } from '../json-case.js';
import type { NotifierStatus } from '../notify/notifier.js';
import type { PlanSummary } from '../plan/plan.js';
import type { PlanRefusal } from '../plan/safety-policy.js';
import type { Difference } from '../sync-state.js';
import type { CommitStatusesStatus } from './commit-status/commit-statuses-status.js';
import type { ForcedReconcileStatus } from './forced-read.js';
import type { ReconcileTrigger } from './reconcile-loop.js';
import type { ReconcileResult } from './watch-metrics.js';

export const WATCH_MODES = ['enforce', 'observe'] as const;
/** `enforce` applies plans; `observe` only plans and reports drift. */
export type WatchMode = (typeof WATCH_MODES)[number];
/**
 * The mode one run ran in: the daemon's, or `suspended` (`edgesync
 * suspend`), which plans and reports as observe does and sends no write.
 */
export type RunMode = WatchMode | 'suspended';

/** A manifest problem with its place, as `/status` shows it. */
export interface ManifestProblem {
  readonly file: string;
  /** null for a problem with the file as a whole (a path that does not exist). */
  readonly line: number | null;
  readonly column: number | null;
  readonly path: string;
  readonly message: string;
}

export interface LastReconcile {
  readonly trigger: ReconcileTrigger;
  readonly result: ReconcileResult;
  /** RFC 3339. */
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
}

export interface PlanRecord {
  readonly summary: PlanSummary;
  /** Addresses of the plan's changes, whatever their state (`differences` tells pending from drift). */
  readonly changes: readonly string[];
  readonly errors: readonly { readonly code: string; readonly message: string }[];
  readonly refusal?: PlanRefusal;
  /** Whether the plan was applied (enforce, not refused, nothing unsafe). */
  readonly applied: boolean;
}

/**
 * An entry (or an owned object, by its marker's name) the last plan could
 * not apply, left as it is while the rest of the plan was applied.
 */
export interface SkippedEntryRecord {
  readonly kind: string;
  readonly name: string;
  /**
   * The planner's error code (`unique_key_taken`, `reference_not_found`,
   * `adopt_not_found`, `edge_not_found`, `route_not_found`,
   * `still_referenced`, …), `protected`, or `waits_for_skipped`.
   */
  readonly reason: string;
  readonly message: string;
  /** The manifest place; null for an object no entry holds (a pruned one). */
  readonly file: string | null;
  readonly line: number | null;
  readonly column: number | null;
  /** For `waits_for_skipped`: the skipped entry (`kind.name`) it waits for; else null. */
  readonly waitsFor: string | null;
  /** RFC 3339: when the first of the reconciles in a row that skipped it for this reason finished planning. */
  readonly since: string;
  /** Reconciles in a row that skipped it for this reason, the last one included. */
  readonly reconciles: number;
}

/** The settle period (--settle) and the deletes waiting for it, as `/status` shows them. */
export interface SettleStatus {
  /** --settle, milliseconds. */
  readonly periodMs: number;
  /** --settle-max, milliseconds. */
  readonly maxMs: number;
  /** No delete of the last plan waits. */
  readonly settled: boolean;
  /** RFC 3339: the first load that read the desired state as it is; null while the manifests are invalid. */
  readonly desiredSince: string | null;
  /** RFC 3339: when the next held delete may go; null when none waits, or none can before the manifests are valid. */
  readonly settlesAt: string | null;
  /** Addresses of the changes whose DELETE (or what waits for one) the last reconcile held back. */
  readonly heldDeletes: readonly string[];
  /** Each held delete's clock. */
  readonly held: readonly HeldDeleteStatus[];
  /** Addresses of the deletes held past --settle-max for another reason than files changing (invalid manifests). */
  readonly overdue: readonly string[];
}

/** One held delete: since when its entry has been absent, and the last change that counts for it. */
export interface HeldDeleteStatus {
  readonly address: string;
  /** RFC 3339: the first plan in a row that asked for it. */
  readonly since: string;
  /** RFC 3339: the last change event on a file that held the entry or could be receiving it. */
  readonly lastChangeAt: string;
  /**
   * RFC 3339: when it goes at the latest if nothing that counts changes
   * (--settle after that change, or --settle-max after `since`), once the
   * manifests read valid.
   */
  readonly dueAt: string;
}

export interface ApplyRecord {
  readonly done: number;
  readonly failed: number;
  readonly skipped: number;
  readonly notStarted: number;
  readonly interrupted: boolean;
  readonly failures: readonly { readonly action: string; readonly message: string }[];
}

/** The live-state cache and the read share, as `/status` shows them. */
export interface LiveCacheStatus {
  /** Every kind is held from a full read (none dropped since). */
  readonly complete: boolean;
  /** Kinds the next reconcile reads in full first. */
  readonly kindsToRead: readonly string[];
  readonly objects: number;
  /** Milliseconds since the oldest kind was last read in full; null until every kind was. */
  readonly ageMs: number | null;
  /** --read-share as a fraction. */
  readonly readShare: number;
  /** Requests a minute background full reads may send. */
  readonly readShareRequestsPerMinute: number;
  /** RFC 3339 start of the background full read in progress; null when none is. */
  readonly fullReadInProgressSince: string | null;
  /** The last finished background full read: its time is the longest any drift waits to be seen. */
  readonly lastFullCycle: {
    readonly finishedAt: string;
    readonly durationMs: number;
    readonly requests: number;
    readonly kindsChanged: readonly string[];
  } | null;
  /** Requests of the budget since start, by purpose. */
  readonly requestsByPurpose: Readonly<Record<string, number>>;
  /** Objects the last reconcile read by ID before planning. */
  readonly lastTargetedReads: number | null;
  /** From the last reconciled file event to its first write, milliseconds. */
  readonly lastChangeToFirstWriteMs: number | null;
}

/** What `/status` shows: a JSON snapshot of the daemon's last view of the world. */
export interface DaemonStatus {
  /** edgesync's version (not Node's nor the platform: the listener may be reachable by others). Absent from a status made without the daemon. */
  readonly version?: string;
  readonly mode: WatchMode;
  /**
   * Whether the daemon is suspended now (`edgesync suspend`, `watch
   * --suspended`): it reads and reports, and sends no write. Absent from a
   * status made without the daemon.
   */
  readonly suspended?: boolean;
  /** Since when and at whose word it is suspended; null while it is not. Absent with `suspended`. */
  readonly suspension?: { readonly since: string; readonly by: string } | null;
  readonly owner: string;
  readonly paths: readonly string[];
  readonly ready: boolean;
  /** Why not ready; null when ready. */
  readonly notReadyReason: string | null;
  /** null until the first load. */
  readonly manifestsValid: boolean | null;
  readonly manifestErrors: readonly ManifestProblem[];
  /** The desired state being enforced: the last valid one, even while the files are invalid. */
  readonly desiredHash: string | null;
  readonly lastReconcile: LastReconcile | null;
  /** RFC 3339; the last reconcile that left the account as the manifests say (observe: that planned). */
  readonly lastSuccessAt: string | null;
  readonly lastError: { readonly code: string; readonly message: string; readonly at: string } | null;
  /**
   * The whole plan as the planner made it: its `errors` and `refusal`
   * include those the daemon confined to one entry (`skippedEntries`).
   */
  readonly lastPlan: PlanRecord | null;
  readonly lastApply: ApplyRecord | null;
  /**
   * The entries the last plan skipped and why; empty when it skipped none.
   * Always present in the daemon's `/status`, as `settle` is (absent only
   * from a status made without the daemon, like `git` and `liveCache`).
   */
  readonly skippedEntries?: readonly SkippedEntryRecord[];
  /**
   * What still differs from the manifests after the last reconcile that
   * planned, in the one vocabulary (docs/glossary.md): change addresses
   * `pending` (Git asks for them), `drift` (the account changed behind
   * edgesync's back), `held` (deletes waiting to settle), and the entries
   * `skipped` (`kind.name`; `skippedEntries` says why). Absent from a status
   * made without the daemon.
   */
  readonly differences?: Readonly<Record<Difference, readonly string[]>>;
  readonly settle?: SettleStatus;
  /**
   * The git commit of the manifests checkout that the last successful reconcile
   * applied (Flux's lastAppliedRevision), and the one checked out now; null
   * outside a checkout. Absent from a status made without the daemon.
   */
  readonly git?: {
    readonly lastAppliedCommit: string | null;
    readonly lastAppliedAt: string | null;
    readonly checkoutCommit: string | null;
  };
  /** Absent from a status made without a cache (never, from the daemon). */
  readonly liveCache?: LiveCacheStatus;
  /** Full re-reads on demand (SIGHUP, POST /reconcile): tickets and progress. Absent from a status made without the daemon. */
  readonly forcedReconcile?: ForcedReconcileStatus;
  /** --notify: each target's scheme and host (never its URL), and the deliveries; absent when no target is set. */
  readonly notifications?: NotifierStatus;
  /** --commit-status: the host, repository and context the statuses go to (never the token), and how the posts fare. */
  readonly commitStatuses?: CommitStatusesStatus;
  /**
   * The directories watched, and those the walk reads that no watch covers
   * (the system's watches used up: their changes arrive with the next
   * resync). Absent from a status made without the daemon.
   */
  readonly watcher?: {
    readonly watchedDirectories: number;
    readonly unwatchedDirectories: readonly { readonly directory: string; readonly code: string }[];
  };
}

/**
 * Results after which the account is as the manifests say (observe: the
 * plan was made): the last success, and ready.
 */
export const SUCCESS_RESULTS: readonly ReconcileResult[] = ['in-sync', 'applied', 'drift', 'pending'];

/**
 * Results after which the daemon counts as ready: the successes, and
 * `settling` (deletes wait for the manifests to settle, seconds away).
 * Not `partial`: an entry is stuck until a person acts.
 */
export const READY_RESULTS: readonly ReconcileResult[] = [...SUCCESS_RESULTS, 'settling'];

/** A key as `/status` writes it: snake_case, and a purpose's or an operation's `-` as `_` (`full-read` → `full_read`). */
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends '-' ? '_' : Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/** `T` with every key, at every depth, as `/status` writes it. */
export type SnakeCased<T> = T extends readonly (infer Item)[]
  ? readonly SnakeCased<Item>[]
  : T extends object
    ? { readonly [K in keyof T as K extends string ? SnakeCase<K> : K]: SnakeCased<T[K]> }
    : T;

/** The body of `/status`, as machines read it. */
export type DaemonStatusJson = SnakeCased<DaemonStatus>;

/**
 * `/status` in the one casing edgesync writes for machines (snake_case, as
 * the service does). Every key of a status is the daemon's own name (the
 * counts by purpose and by operation included: `full_read`, `put_module`),
 * never an ID or user data, so the whole tree is renamed.
 */
export function statusToJson(status: DaemonStatus): DaemonStatusJson {
  return renameKeysDeep(status, (key) => snakeCaseKey(key).replaceAll('-', '_')) as DaemonStatusJson;
}
