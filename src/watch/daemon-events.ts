import type { CommitStatus } from '../git-host/commit-status-text.js';
import type { NotifierOutcome } from '../notify/notifier.js';
import type { PostResult } from './commit-status/commit-status-delivery.js';
import type { ReconcileRecord } from './reconcile/reconcile-record.js';
import type { ReconcileResult } from './watch-metrics.js';

/** Where an event of the daemon comes from: a reconcile's record, a notification, a commit status post. */
export const DAEMON_EVENT_SOURCES = ['reconcile', 'notification', 'commit_status'] as const;
export type DaemonEventSource = (typeof DAEMON_EVENT_SOURCES)[number];

/** How an event reads on the page: as the badges colour it. */
export type DaemonEventTone = 'ok' | 'warn' | 'bad' | 'muted';

/** One thing the daemon did or learnt, as the status page lists it. */
export interface DaemonEvent {
  /** Clock milliseconds. */
  readonly at: number;
  readonly source: DaemonEventSource;
  readonly tone: DaemonEventTone;
  /** In words, already scrubbed of secrets by whoever made it (a webhook URL is shown as `scheme://host/…`). */
  readonly text: string;
}

/** How many events the daemon keeps: the page shows them all. */
export const DAEMON_EVENTS_KEPT = 50;

/**
 * The daemon's last events, newest first: each record as it becomes the
 * current one, each notification made and each delivery's outcome, each
 * commit status posted or failed. A ring of `DAEMON_EVENTS_KEPT`: the same
 * memory whatever the uptime; a restart starts it empty. The daemon owns
 * it and hands `add` to the parts that report, so none of them knows the
 * page exists.
 */
export class DaemonEvents {
  readonly #kept: DaemonEvent[] = [];
  readonly #limit: number;

  constructor(limit = DAEMON_EVENTS_KEPT) {
    this.#limit = limit;
  }

  add(event: DaemonEvent): void {
    this.#kept.push(event);
    if (this.#kept.length > this.#limit) this.#kept.splice(0, this.#kept.length - this.#limit);
  }

  /** Newest first. */
  list(): readonly DaemonEvent[] {
    return [...this.#kept].reverse();
  }
}

/** A reconcile's result as its event reads it: the status page's badge colours. */
export const RESULT_TONE: Readonly<Record<ReconcileResult, DaemonEventTone>> = {
  'in-sync': 'ok',
  applied: 'ok',
  drift: 'warn',
  pending: 'warn',
  settling: 'warn',
  partial: 'warn',
  refused: 'bad',
  invalid: 'bad',
  failed: 'bad',
};

/**
 * A record as it becomes the current one: `reconcile 12 (resync): applied
 * 3 change(s); commit 0123456789ab live`. What it says comes from the
 * record alone, and the one before it for the live commit.
 */
export function recordEvent(
  record: ReconcileRecord,
  previous: ReconcileRecord,
  at: number,
): DaemonEvent | null {
  const last = record.lastReconcile;
  if (last === null) return null;
  const details: string[] = [];
  if (record.manifests.valid === false) details.push(`${record.manifests.problems.length} manifest error(s)`);
  const applied = record.run?.appliedChanges;
  if (applied !== undefined && applied.pending + applied.drift > 0)
    details.push(
      `applied ${applied.pending + applied.drift} change(s)${applied.drift > 0 ? `, ${applied.drift} of them drift` : ''}`,
    );
  if (record.skippedEntries.length > 0)
    details.push(
      `${record.skippedEntries.length} entr${record.skippedEntries.length === 1 ? 'y' : 'ies'} skipped`,
    );
  if (record.settle.heldDeletes.length > 0)
    details.push(`${record.settle.heldDeletes.length} delete(s) held`);
  if (record.lastError !== null && record.lastError !== previous.lastError)
    details.push(record.lastError.message);
  const live = record.git.lastAppliedCommit;
  if (live !== null && live !== previous.git.lastAppliedCommit)
    details.push(`commit ${live.slice(0, 12)} live`);
  return {
    at,
    source: 'reconcile',
    tone: RESULT_TONE[last.result],
    text: `reconcile ${record.runs} (${last.trigger}): ${last.result}${details.length === 0 ? '' : `; ${details.join('; ')}`}`,
  };
}

/** A notification made, delivered or given up. */
export function notificationEvent(outcome: NotifierOutcome, at: number): DaemonEvent {
  switch (outcome.type) {
    case 'made':
      return {
        at,
        source: 'notification',
        tone:
          outcome.severity === 'critical' || outcome.severity === 'error'
            ? 'bad'
            : outcome.severity === 'warning'
              ? 'warn'
              : 'muted',
        text: `${outcome.event} [${outcome.severity}]: ${outcome.summary}`,
      };
    case 'delivered':
      return { at, source: 'notification', tone: 'ok', text: `delivered to ${outcome.target}` };
    case 'failed':
      return {
        at,
        source: 'notification',
        tone: 'bad',
        text: `not delivered to ${outcome.target}: ${outcome.reason}`,
      };
  }
}

/** A commit status posted to the Git host, or a post that failed. */
export function commitStatusEvent(
  result: PostResult,
  commit: string,
  detail: { readonly status?: CommitStatus; readonly message?: string },
  at: number,
): DaemonEvent {
  const sha = commit.slice(0, 12);
  if (result === 'posted' && detail.status !== undefined) {
    const { state, description } = detail.status;
    const tone: DaemonEventTone = state === 'success' ? 'ok' : state === 'pending' ? 'muted' : 'bad';
    return { at, source: 'commit_status', tone, text: `${sha} ${state}: ${description}` };
  }
  return {
    at,
    source: 'commit_status',
    tone: 'bad',
    text: `${sha} not posted (${result})${detail.message === undefined ? '' : `: ${detail.message}`}`,
  };
}
