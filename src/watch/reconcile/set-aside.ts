import type { Logger } from 'pino';
import type { KindName } from '../../kinds/kind-name.js';
import type { Plan, PlanError, ResourceChange } from '../../plan/plan.js';
import type { PlanRefusal } from '../../plan/safety-policy.js';
import { type Difference, differenceState } from '../../sync-state.js';
import type { PlanRecord, RunMode, SkippedEntryRecord } from '../daemon-status.js';
import { holdDeletes } from './desired-settling.js';
import type { ErrorRecord, RunOutcome } from './reconcile-record.js';
import { describeSkipped, placeOf, skippedEntryRecords } from './skipped-entry-records.js';
import { type SkippedEntry, skipStuckEntries } from './stuck-entries.js';

/** What the set-aside stage decides from. */
export interface SetAsideInput {
  readonly plan: Plan;
  readonly mode: RunMode;
  /** Addresses of the changes whose DELETE may go now (the settle stage's); every other DELETE waits. */
  readonly due: ReadonlySet<string>;
  /** The outcome when this run's load found the manifests invalid (the last valid ones were planned); else null. */
  readonly invalid: RunOutcome | null;
  /** The entries the last plan skipped: one skipped again keeps its `since`. */
  readonly skippedBefore: readonly SkippedEntryRecord[];
  /** RFC 3339: now. */
  readonly at: string;
  /** Whether the entry reads as it did when the account last matched it, before this run: a change for it is drift. */
  readonly unchangedSinceInSync: (kind: KindName, name: string) => boolean;
}

/** A change the plan holds, in the one vocabulary (src/sync-state.ts). */
export interface StatedChange {
  readonly change: ResourceChange;
  readonly state: Difference;
}

/** Why the whole plan stops, when it does. */
type Stop =
  | { readonly why: 'errors'; readonly errors: readonly PlanError[] }
  | { readonly why: 'refused'; readonly refusal: PlanRefusal }
  | { readonly why: 'incomplete'; readonly refusal: PlanRefusal };

/** What the set-aside stage returns. */
export interface SetAside {
  /** The plan as `/status` shows it (not applied yet). */
  readonly summary: PlanRecord;
  /** Entries the account will not let be applied, and what waits for them. */
  readonly skipped: readonly SkippedEntry[];
  readonly skippedRecords: readonly SkippedEntryRecord[];
  /** Addresses of the changes whose DELETE waits for the manifests to settle. */
  readonly held: readonly string[];
  /** What to apply; null when nothing is. */
  readonly toApply: Plan | null;
  /** The run's outcome when nothing is applied, or once what is applied all went. */
  readonly outcome: RunOutcome;
  /**
   * The changes of the entries not skipped, each pending (Git asks for it),
   * drift (the account moved under an unchanged entry) or held (a delete
   * waiting for the manifests to settle); empty when there are none.
   */
  readonly differences: readonly StatedChange[];
  readonly stop: Stop | null;
}

/**
 * The set-aside stage: what of a plan the daemon may apply now. An entry
 * the account will not let be applied stops only itself and what waits for
 * it; errors that name no entry, and refusals of the whole plan, stop it
 * all (the daemon never forces); observe and suspended apply nothing; a DELETE waits
 * until the settle stage says it may go (a file half written). Pure: what it decides is logged by `logSetAside`.
 */
export function setAside(input: SetAsideInput): SetAside {
  const { plan, invalid } = input;
  const summary: PlanRecord = {
    summary: plan.summary,
    changes: plan.changes.map((change) => change.address),
    errors: plan.errors.map(({ code, message }) => ({ code, message })),
    ...(plan.refusal ? { refusal: plan.refusal } : {}),
    applied: false,
  };
  const { plan: rest, skipped } = skipStuckEntries(plan);
  const skippedRecords = skippedEntryRecords(input.skippedBefore, skipped, input.at);
  const stuck = stuckOutcome(skipped, skippedRecords, input.at);
  // The last problem the stage met is the run's, whichever outcome names it.
  const ending = (error: ErrorRecord | null, ...candidates: (RunOutcome | null)[]): RunOutcome => ({
    ...(candidates.find((candidate) => candidate !== null) ?? outcome('in-sync', null)),
    error: error ?? stuck?.error ?? null,
  });
  const base = { summary, skipped, skippedRecords, held: [], differences: [], stop: null, toApply: null };
  const stated = (held: readonly string[]): StatedChange[] => statedChanges(rest.changes, held, input);
  if (rest.errors.length > 0) {
    const first = rest.errors[0]?.message ?? '';
    const error = errorAt('plan_error', first, input.at);
    const failed = ending(error, outcome('failed', `plan has errors: ${first}`));
    return { ...base, outcome: failed, stop: { why: 'errors', errors: rest.errors } };
  }
  const refusal = rest.refusal;
  if (refusal && refusal.code !== 'incomplete-read') {
    const error = errorAt(`plan_refused_${refusal.code}`, refusal.message, input.at);
    const refused = ending(error, invalid, outcome('refused', `plan refused: ${refusal.message}`));
    return { ...base, outcome: refused, stop: { why: 'refused', refusal } };
  }
  if (rest.actions.length === 0) return { ...base, outcome: ending(null, invalid, stuck) };
  if (input.mode !== 'enforce') {
    const differences = stated([]);
    // Observe and suspended report what they found: drift when the account moved, else only Git is ahead (pending).
    const found = differences.some(({ state }) => state === 'drift') ? 'drift' : 'pending';
    return { ...base, differences, outcome: ending(null, invalid, stuck, outcome(found, null)) };
  }
  if (refusal) {
    // incomplete-read is no person's decision: the next read is likely complete, so retry as after a failure.
    const error = errorAt('live_state_incomplete', refusal.message, input.at);
    const failed = ending(error, outcome('failed', 'live listing incomplete'));
    return { ...base, differences: stated([]), outcome: failed, stop: { why: 'incomplete', refusal } };
  }
  const { plan: now, held } = holdDeletes(rest, input.due);
  const differences = stated(held);
  const waiting = held.length === 0 ? null : outcome('settling', null);
  if (now.actions.length === 0)
    return { ...base, differences, held, outcome: ending(null, invalid, stuck, waiting) };
  const applied = ending(null, invalid, stuck, waiting, outcome('applied', null));
  return { ...base, differences, held, toApply: now, outcome: applied };
}

/** Each change with its state: held when its delete waits to settle, drift when its entry is unchanged since in sync, else pending. */
function statedChanges(
  changes: readonly ResourceChange[],
  held: readonly string[],
  input: SetAsideInput,
): StatedChange[] {
  const waiting = new Set(held);
  return changes.map((change) => ({
    change,
    state: differenceState({
      heldForSettle: waiting.has(change.address),
      desiredUnchangedSinceInSync: input.unchangedSinceInSync(change.kind, change.name),
    }),
  }));
}

/** Logs what `setAside` decided, in the order it decided it. */
export function logSetAside(log: Logger, aside: SetAside, settlesInMs: number | null): void {
  for (const entry of aside.skipped) {
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
  }
  const stop = aside.stop;
  if (stop?.why === 'errors') log.error({ errors: stop.errors }, 'plan has errors; nothing applied');
  if (stop?.why === 'refused')
    log.error(
      { refusal: stop.refusal },
      'plan refused by the safety rules; nothing applied (the daemon never forces)',
    );
  // One line a change, its message the state's name: a create from a new commit says `pending`, not `drift`.
  for (const { change, state } of aside.differences) {
    log.info({ address: change.address, op: change.op, reason: change.reason, state }, state);
  }
  if (stop?.why === 'incomplete')
    log.error({ refusal: stop.refusal }, 'live state incomplete; a plan with deletes is not applied');
  if (aside.held.length > 0) {
    log.info(
      { held: aside.held.length, first: aside.held[0], settlesInMs },
      settlesInMs === null
        ? 'deletes wait until the manifests are valid again'
        : 'deletes wait for the manifests to settle (--settle)',
    );
  }
}

/** What a run's outcome is when entries are skipped: `partial`, not ready until a person acts. */
function stuckOutcome(
  skipped: readonly SkippedEntry[],
  records: readonly SkippedEntryRecord[],
  at: string,
): RunOutcome | null {
  if (records.length === 0) return null;
  const first = skipped[0];
  const message = first ? `${first.kind}.${first.name}: ${first.message}` : '';
  return { ...outcome('partial', describeSkipped(records)), error: errorAt('entries_skipped', message, at) };
}

function outcome(result: RunOutcome['result'], notReadyReason: string | null): RunOutcome {
  return { result, notReadyReason, retry: false, error: null };
}

function errorAt(code: string, message: string, at: string): ErrorRecord {
  return { code, message, at };
}
