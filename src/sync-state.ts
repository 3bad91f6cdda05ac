/**
 * How one managed object stands against Git: the one vocabulary of every
 * command, the daemon's logs, `/status`, the status page, the metrics'
 * labels and the notifications (docs/glossary.md). Flux and Argo CD keep
 * "out of sync with Git" apart from drift, a change made behind the tool's
 * back; so does edgesync. The names are snake_case, as all of edgesync's JSON
 * and label values are; `SYNC_STATE_WORDS` is how a person reads them.
 */
export const SYNC_STATES = ['in_sync', 'pending', 'drift', 'skipped', 'held'] as const;
export type SyncState = (typeof SYNC_STATES)[number];

/** The states that leave something to do: every state but `in_sync`. */
export type Difference = Exclude<SyncState, 'in_sync'>;
export const DIFFERENCES: readonly Difference[] = ['pending', 'drift', 'skipped', 'held'];

/** What each state means, in the words docs/glossary.md uses (test/docs/glossary.test.ts holds the two together). */
export const SYNC_STATE_MEANINGS: Readonly<Record<SyncState, string>> = {
  in_sync: 'the account holds what Git says; nothing to do',
  pending: 'Git says so and the account does not have it yet',
  drift: "the account changed behind edgesync's back",
  skipped: 'cannot be applied, and why',
  held: 'a delete waiting for the manifests to settle',
};

/** How a person reads each state in a sentence or a table ("2 pending, 1 in sync"). */
export const SYNC_STATE_WORDS: Readonly<Record<SyncState, string>> = {
  in_sync: 'in sync',
  pending: 'pending',
  drift: 'drift',
  skipped: 'skipped',
  held: 'held',
};

/** What is known of one difference between Git and the account when it is named. */
export interface DifferenceFacts {
  /** Why it cannot be applied (a planner error code, `protected`, `waits_for_skipped`); absent when it can. */
  readonly skippedBecause?: string;
  /** A DELETE (or what waits for one) held until the manifests have settled. */
  readonly heldForSettle?: boolean;
  /**
   * The entry's desired state is the one the account last matched, so the
   * account is what moved. Only a reader with history (the daemon) knows it;
   * unknown is not drift: a one-shot `plan` calls every difference pending.
   */
  readonly desiredUnchangedSinceInSync?: boolean;
}

/**
 * The one state a difference is shown as. What stops it comes first (it
 * cannot be applied, or waits to settle), then where it came from: the
 * account moving under an unchanged entry is drift, anything else is Git
 * ahead of the account.
 */
export function differenceState(facts: DifferenceFacts): Difference {
  if (facts.skippedBecause !== undefined) return 'skipped';
  if (facts.heldForSettle === true) return 'held';
  if (facts.desiredUnchangedSinceInSync === true) return 'drift';
  return 'pending';
}

/** Objects by state, as a summary counts them; a state absent counts 0. */
export type SyncStateCounts = Readonly<Partial<Record<SyncState, number>>>;

/**
 * `2 pending, 1 drift, 1 held`: the non-zero counts in the vocabulary's
 * order, or `in sync` when nothing differs. `in_sync` is left out when
 * something differs: the line is about what is left to do.
 */
export function formatDifferences(counts: SyncStateCounts): string {
  const parts = DIFFERENCES.filter((state) => (counts[state] ?? 0) > 0).map(
    (state) => `${counts[state]} ${SYNC_STATE_WORDS[state]}`,
  );
  return parts.length === 0 ? SYNC_STATE_WORDS.in_sync : parts.join(', ');
}

/** Whether `value` is one of the vocabulary's names (a `/status` field, a query string, a metric label read back). */
export function isSyncState(value: unknown): value is SyncState {
  return typeof value === 'string' && (SYNC_STATES as readonly string[]).includes(value);
}
