import { DIFFERENCES } from '../sync-state.js';
import { SUCCESS_RESULTS } from './daemon-status.js';
import type { ReconcileRecord } from './reconcile/reconcile-record.js';
import { WatchMetrics } from './watch-metrics.js';

/**
 * The metrics of a run, taken from its record once the daemon has replaced
 * its current record with it: the counters count what the run did, the
 * gauges say what the record says. Nothing here reads a run in progress.
 */
export function publishRecordMetrics(metrics: WatchMetrics, record: ReconcileRecord): void {
  const run = record.run;
  if (run === null) return;
  const { result } = run.outcome;
  metrics.reconciles.inc({ result });
  metrics.reconcileDuration.observe((run.finishedAt - run.startedAt) / 1000);
  if (SUCCESS_RESULTS.includes(result)) metrics.lastSuccess.set(run.finishedAt / 1000);
  if (record.manifests.valid !== null) metrics.manifestsValid.set(record.manifests.valid ? 1 : 0);
  metrics.heldDeletes.set(record.settle.heldDeletes.length);
  metrics.heldDeletesOverdue.set(record.settle.overdue.length);
  if (run.rateLimitWaitMs > 0) metrics.rateLimitWaitSeconds.inc(run.rateLimitWaitMs / 1000);
  if (run.changeToFirstWriteMs !== null) metrics.changeToFirstWrite.observe(run.changeToFirstWriteMs / 1000);
  for (const kind of run.cacheSurprises) metrics.cacheDrops.inc({ kind });
  publishSkipped(metrics, record);
  for (const state of DIFFERENCES) metrics.differences.set({ state }, record.differences[state].length);
  for (const state of ['pending', 'drift'] as const) {
    if (run.appliedChanges[state] > 0) metrics.appliedChanges.inc({ state }, run.appliedChanges[state]);
  }
  publishObjects(metrics, record);
  publishCommit(metrics, record);
}

function publishSkipped(metrics: WatchMetrics, record: ReconcileRecord): void {
  const counts = new Map<string, { kind: string; reason: string; count: number }>();
  for (const entry of record.skippedEntries) {
    const key = `${entry.kind}\u0000${entry.reason}`;
    const count = counts.get(key) ?? { kind: entry.kind, reason: entry.reason, count: 0 };
    count.count += 1;
    counts.set(key, count);
  }
  metrics.skippedEntries.reset();
  for (const { kind, reason, count } of counts.values()) metrics.skippedEntries.set({ kind, reason }, count);
}

function publishObjects(metrics: WatchMetrics, record: ReconcileRecord): void {
  const objects = record.objects;
  if (objects === null) return;
  WatchMetrics.setByKind(metrics.ownedObjects, objects.owned);
  WatchMetrics.setByKind(metrics.driftedObjects, objects.drifted);
  for (const gauge of metrics.expirations.values()) gauge.reset();
  for (const { kind, name, id, notAfter } of objects.expiring)
    metrics.expirations.get(kind)?.set({ name, id }, notAfter / 1000);
}

function publishCommit(metrics: WatchMetrics, record: ReconcileRecord): void {
  const { checkoutCommit, lastAppliedCommit } = record.git;
  if (lastAppliedCommit !== null) {
    metrics.liveCommit.reset();
    metrics.liveCommit.set({ commit: lastAppliedCommit }, 1);
  }
  metrics.liveCommitBehind.set(checkoutCommit !== null && checkoutCommit !== lastAppliedCommit ? 1 : 0);
}
