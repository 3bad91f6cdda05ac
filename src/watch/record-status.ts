import type { NotifierStatus } from '../notify/notifier.js';
import { VERSION } from '../version.js';
import type { CommitStatusesStatus } from './commit-status/commit-statuses-status.js';
import type { DaemonClock } from './daemon-clock.js';
import type { DaemonStatus, LiveCacheStatus, SettleStatus, WatchMode } from './daemon-status.js';
import type { ForcedReconcileStatus } from './forced-read.js';
import type { FullCycleRecord } from './full-read-cycle.js';
import type { LiveCacheView } from './live-state-cache.js';
import type { WatchCoverage } from './manifest-watcher.js';
import type { ReconcileRecord } from './reconcile/reconcile-record.js';
import type { SuspensionStatus } from './suspension.js';

/** Who the daemon is: the same in every status. */
export interface DaemonIdentity {
  readonly mode: WatchMode;
  readonly owner: string;
  readonly paths: readonly string[];
}

/** What `/status` shows besides the record: the daemon's long-lived parts, each read as it stands. */
export interface StatusParts {
  readonly identity: DaemonIdentity;
  readonly clock: DaemonClock;
  readonly cache: LiveCacheView;
  /** The read share's fraction and requests a minute. */
  readonly readShare: { readonly share: number; readonly requestsPerMinute: number };
  readonly fullReads: { readonly inProgressSince: number | null; readonly lastCycle: FullCycleRecord | null };
  /** The budget's requests since start, by purpose. */
  readonly requestsByPurpose: () => Readonly<Record<string, number>>;
  readonly watcher: { coverage(): WatchCoverage };
  readonly forcedReads: { status(): ForcedReconcileStatus };
  readonly notifier: { status(): NotifierStatus } | null;
  readonly commitStatuses: { status(): CommitStatusesStatus } | null;
  readonly suspension: { status(): SuspensionStatus };
}

/** What `/status` says of a record: the last run, what it left, and the daemon's identity. */
export function recordStatus(record: ReconcileRecord, identity: DaemonIdentity): DaemonStatus {
  return {
    version: VERSION,
    mode: identity.mode,
    owner: identity.owner,
    paths: identity.paths,
    ready: record.ready,
    notReadyReason: record.notReadyReason,
    manifestsValid: record.manifests.valid,
    manifestErrors: record.manifests.problems,
    desiredHash: record.manifests.desired?.hash ?? null,
    lastReconcile: record.lastReconcile,
    lastSuccessAt: record.lastSuccessAt,
    lastError: record.lastError,
    lastPlan: record.plan?.summary ?? null,
    lastApply: record.apply,
    skippedEntries: record.skippedEntries,
    differences: record.differences,
    settle: settleStatus(record.settle),
    git: record.git,
  };
}

/**
 * `/status`: the current record, and how the daemon's long-lived parts
 * stand now (the cache, the watcher, the forced re-reads, the notifications).
 * A daemon blind to edits in some directories is not ready, however well its
 * last reconcile went.
 */
export function daemonStatus(record: ReconcileRecord, parts: StatusParts): DaemonStatus {
  const reconciled = recordStatus(record, parts.identity);
  const coverage = parts.watcher.coverage();
  const blind = coverage.notReadyReason;
  const suspension = parts.suspension.status();
  return {
    ...reconciled,
    suspended: suspension.suspended,
    suspension:
      suspension.since === null || suspension.by === null
        ? null
        : { since: suspension.since, by: suspension.by },
    ready: reconciled.ready && blind === null,
    notReadyReason: reconciled.notReadyReason ?? blind,
    liveCache: cacheStatus(record, parts),
    watcher: {
      watchedDirectories: coverage.watchedDirectories,
      unwatchedDirectories: coverage.unwatchedDirectories,
    },
    forcedReconcile: parts.forcedReads.status(),
    ...(parts.notifier === null ? {} : { notifications: parts.notifier.status() }),
    ...(parts.commitStatuses === null ? {} : { commitStatuses: parts.commitStatuses.status() }),
  };
}

function cacheStatus(record: ReconcileRecord, parts: StatusParts): LiveCacheStatus {
  const facts = parts.cache.facts();
  const since = parts.fullReads.inProgressSince;
  return {
    complete: facts.complete,
    kindsToRead: facts.kindsToRead,
    objects: facts.objects,
    ageMs: facts.oldestFullReadAt === null ? null : parts.clock.now() - facts.oldestFullReadAt,
    readShare: parts.readShare.share,
    readShareRequestsPerMinute: parts.readShare.requestsPerMinute,
    fullReadInProgressSince: since === null ? null : new Date(since).toISOString(),
    lastFullCycle: parts.fullReads.lastCycle,
    requestsByPurpose: { ...parts.requestsByPurpose() },
    lastTargetedReads: record.lastTargetedReads,
    lastChangeToFirstWriteMs: record.lastChangeToFirstWriteMs,
  };
}

function settleStatus(settle: ReconcileRecord['settle']): SettleStatus {
  const at = (ms: number): string => new Date(ms).toISOString();
  const held = new Set(settle.heldDeletes);
  return {
    periodMs: settle.periodMs,
    maxMs: settle.maxMs,
    settled: settle.settled,
    desiredSince: settle.since === null ? null : at(settle.since),
    settlesAt: settle.settlesAt === null ? null : at(settle.settlesAt),
    heldDeletes: settle.heldDeletes,
    held: settle.tracked
      .filter((tracked) => held.has(tracked.address))
      .map((tracked) => ({
        address: tracked.address,
        since: at(tracked.since),
        lastChangeAt: at(tracked.changedAt),
        dueAt: at(Math.min(tracked.changedAt + settle.periodMs, tracked.since + settle.maxMs)),
      })),
    overdue: settle.overdue.map((tracked) => tracked.address),
  };
}
