import {
  type DaemonIdentity,
  EVENT_SEVERITY,
  type Notification,
  type NotificationError,
  type NotificationEvent,
  type ObservedChanges,
} from './notification.js';

/** A skipped entry, as the daemon's status holds it. */
export interface ObservedSkippedEntry {
  readonly kind: string;
  readonly name: string;
  readonly reason: string;
  readonly message: string;
  readonly file: string | null;
  readonly line: number | null;
  readonly column: number | null;
  /** Reconciles in a row that skipped it for this reason. */
  readonly reconciles: number;
}

/**
 * What the tracker reads of the daemon's status after a reconcile: a part of
 * its `/status`, so that the daemon passes its status as it is.
 */
export interface ObservedStatus {
  readonly lastReconcile: { readonly trigger: string; readonly result: string } | null;
  readonly manifestsValid: boolean | null;
  readonly manifestErrors: readonly {
    readonly file: string;
    readonly line: number | null;
    readonly column: number | null;
    readonly message: string;
  }[];
  readonly desiredHash: string | null;
  readonly lastError: { readonly code: string; readonly message: string } | null;
  readonly lastPlan: {
    readonly changes: readonly string[];
    readonly errors: readonly { readonly code: string; readonly message: string }[];
    readonly refusal?: { readonly code: string; readonly message: string };
    readonly applied: boolean;
  } | null;
  readonly lastApply: {
    readonly failures: readonly { readonly action: string; readonly message: string }[];
  } | null;
  readonly skippedEntries?: readonly ObservedSkippedEntry[];
  readonly git?: { readonly checkoutCommit: string | null; readonly lastAppliedCommit?: string | null };
  /** What `/readyz` answers: false (503) leaves a failure open whatever the result. */
  readonly ready?: boolean;
  /** What still differs, by state: `drift` is what changed behind edgesync's back. */
  readonly differences?: { readonly drift: readonly string[] };
  /** Deletes held past --settle-max for another reason than files changing. */
  readonly settle?: { readonly maxMs: number; readonly overdue: readonly string[] };
}

/** What the run's record says beyond `/status`: the drift it put back, and the plan's changes field by field. */
export interface ObservedRun {
  /** Addresses of the drift changes the run applied whole. */
  readonly correctedDrift: readonly string[];
  /** The plan's changes at `addresses` with their fields; asked only for a drift event. */
  changes(addresses: readonly string[]): ObservedChanges;
}

const NO_RUN: ObservedRun = { correctedDrift: [], changes: () => ({ list: [], total: 0 }) };

/** An object that stops working by itself on a date (a CA's certificate), with its manifest place. */
export interface ObservedExpiry {
  readonly kind: string;
  readonly name: string;
  /** Milliseconds since the epoch. */
  readonly notAfter: number;
  readonly file: string | null;
  readonly line: number | null;
  readonly column: number | null;
}

/** The loop's heartbeat, as `/healthz` reports it. */
export interface ObservedHealth {
  readonly alive: boolean;
  readonly detail: string;
}

export interface NotificationTrackerOptions {
  readonly identity: DaemonIdentity;
  readonly mode: string;
  /** `--status-page-url`, carried by every notification; null when not set. */
  readonly statusPageUrl: string | null;
  /** Skipped this many reconciles in a row, an entry counts as stuck. @default 3 */
  readonly stuckAfterReconciles?: number;
}

/** Addresses a drift summary names before it says how many more there are. */
const SUMMARY_ADDRESSES = 10;

/**
 * Results that end a failure or a refusal: the account is as the manifests
 * say (observe: the plan was made), SUCCESS_RESULTS of daemon-status.ts.
 * Not `settling` (deletes still held) nor `partial` (entries skipped): a
 * receiver that closes an incident on "recovered" must not close one that
 * is still open. An invalid manifest set says nothing either way.
 */
const RECOVERED_RESULTS: ReadonlySet<string> = new Set(['in-sync', 'applied', 'drift', 'pending']);

/** Observe-mode results that found no drift: a drift said before has ended. */
const DRIFTLESS_RESULTS: ReadonlySet<string> = new Set(['in-sync', 'pending']);

/**
 * Turns what the daemon sees into notifications, each condition once: a
 * failure repeated every cycle is one `reconcile_failed`, then one
 * `reconcile_recovered` when a reconcile succeeds. Pure: it keeps only the
 * conditions it has reported, and sends nothing.
 */
export class NotificationTracker {
  readonly #options: NotificationTrackerOptions;
  #health: 'ok' | 'failed' | 'refused' = 'ok';
  #manifestsInvalid = false;
  /** The drifted addresses last reported in observe mode; null when none are. */
  #drift: string | null = null;
  /** The desired state last seen applied whole or in sync: a plan for the same one later corrects drift. */
  readonly #stuckEntries = new Map<string, ObservedSkippedEntry>();
  #loopStuck = false;
  /** The deletes last reported held past --settle-max; empty when none is. */
  #overdue: readonly string[] = [];
  readonly #expiriesSaid = new Set<string>();
  #commit: string | null = null;
  /** The live commit last announced; undefined before the first reconcile. */
  #liveCommit: string | null | undefined;

  constructor(options: NotificationTrackerOptions) {
    this.#options = options;
  }

  /** After each reconcile: what changed since the last one. */
  observeReconcile(status: ObservedStatus, now: number, run: ObservedRun = NO_RUN): Notification[] {
    this.#commit = status.git?.checkoutCommit ?? null;
    const out: Notification[] = [];
    const say = (
      event: NotificationEvent,
      summary: string,
      errors: readonly NotificationError[] = [],
      detail: { readonly changes?: ObservedChanges; readonly commit?: string | null } = {},
    ): void => {
      out.push(this.#notification(event, summary, errors, now, detail));
    };
    const result = status.lastReconcile?.result;
    if (result === undefined) return out;
    const live = status.git?.lastAppliedCommit ?? null;
    if (live !== null && live !== this.#liveCommit) {
      say('commit_live', `commit ${live.slice(0, 12)} is live: the account holds what it says`, [], {
        commit: live,
      });
    }
    this.#liveCommit = live;

    if (status.manifestsValid === false && !this.#manifestsInvalid) {
      this.#manifestsInvalid = true;
      const errors = status.manifestErrors.map((error) => ({ ...error }));
      say(
        'manifests_invalid',
        `manifests invalid: ${errors.length} error(s); the last valid desired state stays in force`,
        errors,
      );
    } else if (status.manifestsValid === true && this.#manifestsInvalid) {
      this.#manifestsInvalid = false;
      say('manifests_valid', 'manifests valid again');
    }

    if (result === 'failed' && this.#health !== 'failed') {
      this.#health = 'failed';
      say(
        'reconcile_failed',
        `reconcile failed: ${status.lastError?.message ?? 'see the logs'}`,
        failuresOf(status),
      );
    } else if (result === 'refused' && this.#health !== 'refused') {
      this.#health = 'refused';
      const refusal = status.lastPlan?.refusal;
      say(
        'reconcile_refused',
        `plan refused, nothing applied: ${refusal?.message ?? status.lastError?.message ?? 'see /status'}`,
      );
    } else if (RECOVERED_RESULTS.has(result) && status.ready !== false && this.#health !== 'ok') {
      this.#health = 'ok';
      say('reconcile_recovered', `reconcile ${result} again after a ${this.#wasUnhealthy()}`);
    }

    const addresses = status.lastPlan?.changes ?? [];
    if (result === 'drift') {
      const drifted = status.differences?.drift ?? addresses;
      const key = [...drifted].sort().join('\n');
      if (key !== this.#drift) {
        this.#drift = key;
        say('drift_found', `drift found (observe mode, not corrected): ${describeChanges(drifted)}`, [], {
          changes: run.changes(drifted),
        });
      }
    } else if (DRIFTLESS_RESULTS.has(result) && this.#drift !== null) {
      this.#drift = null;
      say(
        'drift_resolved',
        result === 'in-sync'
          ? 'no drift any more: the account is as the manifests say'
          : 'no drift any more: what differs is from Git, not applied (observe mode)',
      );
    }
    // The run's own word (the in-sync ledger's): a change from Git applied in the same run is not drift.
    if (run.correctedDrift.length > 0) {
      say('drift_corrected', `drift corrected: ${describeChanges(run.correctedDrift)}`, [], {
        changes: run.changes(run.correctedDrift),
      });
    }

    this.#observeSkipped(status.skippedEntries ?? [], say);
    this.#observeOverdue(status, say);
    return out;
  }

  /** An event the daemon tells of itself (a person suspended it): built like every other, with the commit checked out. */
  observeEvent(event: NotificationEvent, summary: string, now: number): Notification {
    return this.#notification(event, summary, [], now);
  }

  /** Deletes held past --settle-max: said once when they start to be, and once when none is. */
  #observeOverdue(
    status: ObservedStatus,
    say: (event: NotificationEvent, summary: string, errors?: readonly NotificationError[]) => void,
  ): void {
    const overdue = status.settle?.overdue ?? [];
    if (overdue.length > 0 && this.#overdue.length === 0) {
      const seconds = (status.settle?.maxMs ?? 0) / 1000;
      say(
        'deletes_held',
        `${overdue.length} delete(s) held for over --settle-max (${seconds} s): the manifests do not read valid; they go once they do`,
        overdue.slice(0, SUMMARY_ADDRESSES).map((address) => ({
          file: null,
          line: null,
          column: null,
          message: `${address}: delete held`,
        })),
      );
    } else if (overdue.length === 0 && this.#overdue.length > 0) {
      say('deletes_released', 'no delete is held past --settle-max any more');
    }
    this.#overdue = overdue;
  }

  /** The loop's heartbeat, checked on a timer: stuck once, then recovered once. */
  observeHealth(health: ObservedHealth, now: number): Notification[] {
    if (!health.alive && !this.#loopStuck) {
      this.#loopStuck = true;
      return [this.#notification('daemon_stuck', `daemon stuck: ${health.detail}`, [], now)];
    }
    if (health.alive && this.#loopStuck) {
      this.#loopStuck = false;
      return [this.#notification('daemon_recovered', `daemon running again: ${health.detail}`, [], now)];
    }
    return [];
  }

  /** Each object that expires within `windowMs` (milliseconds) of `now`, once for each date it has. */
  observeExpiries(expiries: readonly ObservedExpiry[], now: number, windowMs: number): Notification[] {
    const out: Notification[] = [];
    for (const expiry of expiries) {
      if (expiry.notAfter - now > windowMs) continue;
      const key = `${expiry.kind}\u0000${expiry.name}\u0000${expiry.notAfter}`;
      if (this.#expiriesSaid.has(key)) continue;
      this.#expiriesSaid.add(key);
      const days = Math.floor(Math.abs(expiry.notAfter - now) / 86_400_000);
      const when = expiry.notAfter <= now ? `expired ${days} day(s) ago` : `expires in ${days} day(s)`;
      const date = new Date(expiry.notAfter).toISOString();
      const message = `${expiry.kind}.${expiry.name} ${when} (${date}); replace it before what uses it stops working`;
      out.push(
        this.#notification(
          'ca_expiring',
          `${expiry.kind}.${expiry.name} ${when}`,
          [{ file: expiry.file, line: expiry.line, column: expiry.column, message }],
          now,
        ),
      );
    }
    return out;
  }

  #observeSkipped(
    skipped: readonly ObservedSkippedEntry[],
    say: (event: NotificationEvent, summary: string, errors?: readonly NotificationError[]) => void,
  ): void {
    const limit = this.#options.stuckAfterReconciles ?? 3;
    const now = new Map<string, ObservedSkippedEntry>();
    for (const entry of skipped) {
      if (entry.reconciles >= limit) now.set(`${entry.kind}.${entry.name}\u0000${entry.reason}`, entry);
    }
    for (const [key, entry] of now) {
      if (this.#stuckEntries.has(key)) continue;
      this.#stuckEntries.set(key, entry);
      say(
        'entry_stuck',
        `${entry.kind}.${entry.name} skipped ${entry.reconciles} reconciles in a row (${entry.reason}); a person must act`,
        [{ file: entry.file, line: entry.line, column: entry.column, message: entry.message }],
      );
    }
    for (const [key, entry] of this.#stuckEntries) {
      if (now.has(key)) continue;
      this.#stuckEntries.delete(key);
      say('entry_recovered', `${entry.kind}.${entry.name} is no longer skipped`);
    }
  }

  #wasUnhealthy(): string {
    return this.#health === 'refused' ? 'refusal' : 'failure';
  }

  #notification(
    event: NotificationEvent,
    summary: string,
    errors: readonly NotificationError[],
    now: number,
    detail: { readonly changes?: ObservedChanges; readonly commit?: string | null } = {},
  ): Notification {
    return {
      event,
      severity: EVENT_SEVERITY[event],
      identity: this.#options.identity,
      mode: this.#options.mode,
      statusPageUrl: this.#options.statusPageUrl,
      commit: detail.commit === undefined ? this.#commit : detail.commit,
      summary,
      errors,
      changes: detail.changes?.list ?? [],
      changeCount: detail.changes?.total ?? 0,
      at: new Date(now).toISOString(),
    };
  }
}

/** What failed, with places where there are: plan errors, then the apply's failed actions. */
function failuresOf(status: ObservedStatus): NotificationError[] {
  const none = { file: null, line: null, column: null } as const;
  return [
    ...(status.lastPlan?.errors ?? []).map((error) => ({
      ...none,
      message: `${error.code}: ${error.message}`,
    })),
    // The apply record is the last apply's: only this reconcile's if its plan was applied.
    ...(status.lastPlan?.applied === true ? (status.lastApply?.failures ?? []) : []).map((failure) => ({
      ...none,
      message: `${failure.action}: ${failure.message}`,
    })),
  ];
}

function describeChanges(changes: readonly string[]): string {
  const named = changes.slice(0, SUMMARY_ADDRESSES).join(', ');
  const more = changes.length > SUMMARY_ADDRESSES ? `, and ${changes.length - SUMMARY_ADDRESSES} more` : '';
  return `${changes.length} change(s): ${named}${more}`;
}
