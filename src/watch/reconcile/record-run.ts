import { applySucceeded } from '../../apply/apply-result.js';
import type { Kind } from '../../kinds/kind.js';
import type { KindName } from '../../kinds/kind-name.js';
import type { LiveState } from '../../kinds/live-state.js';
import type { DesiredEntry, DesiredState } from '../../manifest/desired-state.js';
import type { ObservedExpiry } from '../../notify/notification-tracker.js';
import type { Plan } from '../../plan/plan.js';
import type { Difference } from '../../sync-state.js';
import { READY_RESULTS, SUCCESS_RESULTS } from '../daemon-status.js';
import type { AppliedRun } from './apply-stage.js';
import type { SettleFacts } from './desired-settling.js';
import type { InSyncLedger } from './in-sync-ledger.js';
import type { PlannedRun } from './plan-stage.js';
import type {
  DifferencesRecord,
  ExpiringObject,
  GitRecord,
  ManifestsRecord,
  ObjectCounts,
  ReconcileRecord,
  RunInput,
  RunOutcome,
  SettleRecord,
} from './reconcile-record.js';
import type { SetAside } from './set-aside.js';

/** What the record stage is told of the daemon, the same for every run. */
export interface RecordContext {
  readonly kinds: readonly Kind[];
  readonly owner: string;
  readonly ledger: InSyncLedger;
}

/** What one run's stages returned, as far as it got. */
export interface RunFacts {
  readonly input: RunInput;
  readonly outcome: RunOutcome;
  /** Clock milliseconds. */
  readonly startedAt: number;
  readonly finishedAt: number;
  /** The client's total wait for the budget at the run's end, milliseconds. */
  readonly rateLimitWaitMs: number;
  readonly manifests?: ManifestsRecord;
  readonly settling?: SettleFacts;
  readonly planned?: PlannedRun & { readonly desired: DesiredState };
  readonly aside?: SetAside;
  readonly applied?: AppliedRun;
}

/**
 * The record stage: the record after a run, from the record before it and
 * what the run's stages returned. What the run did not reach (a plan, when
 * the read failed first) keeps the previous record's value. Pure but for
 * the ledger of matched entries, to which it only adds.
 */
export function recordRun(
  context: RecordContext,
  previous: ReconcileRecord,
  facts: RunFacts,
): ReconcileRecord {
  const runs = previous.runs + 1;
  const { input, outcome, planned, aside, applied } = facts;
  const finishedAtIso = new Date(facts.finishedAt).toISOString();
  const manifests = facts.manifests ?? previous.manifests;
  const success = SUCCESS_RESULTS.includes(outcome.result);
  const settle = settleRecord(previous.settle, facts);
  const ready =
    READY_RESULTS.includes(outcome.result) && manifests.valid !== false && settle.overdue.length === 0;
  // What this run matched counts from this run on: earlier records read the ledger as of their own run.
  if (planned !== undefined && aside !== undefined)
    context.ledger.mark(matchedEntries(planned, applied), runs);
  const changeToFirstWriteMs =
    applied?.firstWriteAt != null && input.changeEventAt !== null
      ? applied.firstWriteAt - input.changeEventAt
      : null;
  return {
    runs,
    run: {
      input,
      outcome,
      startedAt: facts.startedAt,
      finishedAt: facts.finishedAt,
      changeToFirstWriteMs,
      targetedReads: planned?.targetedReads ?? null,
      rateLimitWaitMs: Math.max(0, facts.rateLimitWaitMs - previous.rateLimitWaitMs),
      cacheSurprises: applied?.surprises ?? [],
      settleCheckInMs: settleCheckInMs(facts),
      appliedChanges: appliedChanges(aside, applied),
      correctedDrift: correctedDrift(aside, applied),
    },
    lastReconcile: {
      trigger: input.trigger,
      result: outcome.result,
      startedAt: new Date(facts.startedAt).toISOString(),
      finishedAt: finishedAtIso,
      durationMs: facts.finishedAt - facts.startedAt,
    },
    ready,
    notReadyReason: ready ? null : notReadyReason(manifests, outcome, settle),
    lastSuccessAt: success ? finishedAtIso : previous.lastSuccessAt,
    lastError: success ? null : (outcome.error ?? previous.lastError),
    manifests,
    settle,
    plan: planRecord(previous, facts, runs, finishedAtIso),
    skippedEntries: aside?.skippedRecords ?? previous.skippedEntries,
    differences: aside === undefined ? previous.differences : differencesLeft(aside, applied),
    apply: applied?.record ?? previous.apply,
    objects: planned === undefined ? previous.objects : objectCounts(context, planned, facts),
    expiries: expiriesOf(context.kinds, manifests.desired, previous.expiries),
    git: gitRecord(previous.git, input.commit, outcome, finishedAtIso),
    lastTargetedReads: planned?.targetedReads ?? previous.lastTargetedReads,
    lastChangeToFirstWriteMs: changeToFirstWriteMs ?? previous.lastChangeToFirstWriteMs,
    rateLimitWaitMs: facts.rateLimitWaitMs,
    // As the run found it: a change this run applied still says whether it was drift or Git's.
    desiredUnchangedSinceInSync: context.ledger.asOf(runs - 1),
  };
}

function notReadyReason(
  manifests: ManifestsRecord,
  outcome: RunOutcome,
  settle: SettleRecord,
): string | null {
  const overdue =
    settle.overdue.length === 0
      ? null
      : `${settle.overdue.length} delete(s) held for over --settle-max (${settle.maxMs / 1000} s), as the manifests do not read valid: ${settle.overdue[0]?.address}${settle.overdue.length > 1 ? ', …' : ''}`;
  // Readiness never says ready while `/status` says the manifests are invalid.
  if (manifests.valid === false) {
    const invalid = `${manifests.problems.length} manifest error(s); see /status`;
    return overdue === null ? invalid : `${invalid}; ${overdue}`;
  }
  return outcome.notReadyReason ?? overdue;
}

function settleRecord(previous: SettleRecord, facts: RunFacts): SettleRecord {
  const settling = facts.settling;
  if (settling === undefined) return previous;
  const deletes = settling.deletes;
  if (deletes === null) return { ...previous, hash: settling.hash, since: settling.since };
  const heldDeletes = facts.aside?.held ?? [];
  return {
    periodMs: previous.periodMs,
    maxMs: previous.maxMs,
    hash: settling.hash,
    since: settling.since,
    settled: heldDeletes.length === 0,
    settlesAt: heldDeletes.length === 0 ? null : deletes.nextAt,
    heldDeletes,
    tracked: deletes.tracked,
    overdue: deletes.overdue,
  };
}

/** When a run that held deletes back should be followed by one that may send them. */
function settleCheckInMs(facts: RunFacts): number | null {
  const nextAt = facts.settling?.deletes?.nextAt ?? null;
  if (facts.aside === undefined || facts.aside.held.length === 0 || nextAt === null) return null;
  return Math.max(0, nextAt - facts.finishedAt);
}

function planRecord(
  previous: ReconcileRecord,
  facts: RunFacts,
  run: number,
  finishedAt: string,
): ReconcileRecord['plan'] {
  const { planned, aside } = facts;
  if (planned !== undefined && aside !== undefined) {
    return {
      summary: { ...aside.summary, applied: facts.applied !== undefined },
      changes: planned.plan.changes,
      live: planned.live,
      desired: planned.desired,
      run,
      finishedAt,
      appliedActions: facts.applied?.result.actions.filter((action) => action.outcome === 'done') ?? [],
    };
  }
  // A load that left no desired state leaves no plan either.
  if (facts.manifests !== undefined && facts.manifests.desired === null) return null;
  return previous.plan;
}

/** The changes the run applied whole, by the state they were in when planned. */
function appliedChanges(
  aside: SetAside | undefined,
  applied: AppliedRun | undefined,
): { readonly pending: number; readonly drift: number } {
  const counts = { pending: 0, drift: 0 };
  if (aside === undefined || applied === undefined) return counts;
  const done = doneKeys(applied);
  for (const { change, state } of aside.differences) {
    if ((state === 'pending' || state === 'drift') && change.actionKeys.every((key) => done.has(key)))
      counts[state] += 1;
  }
  return counts;
}

/** The drift changes the run applied whole: each action of the change done. */
function correctedDrift(aside: SetAside | undefined, applied: AppliedRun | undefined): string[] {
  if (aside === undefined || applied === undefined) return [];
  const done = doneKeys(applied);
  return aside.differences.flatMap(({ change, state }) =>
    state === 'drift' && change.actionKeys.every((key) => done.has(key)) ? [change.address] : [],
  );
}

function doneKeys(applied: AppliedRun | undefined): Set<string> {
  return new Set(
    applied?.result.actions.flatMap((action) => (action.outcome === 'done' ? [action.key] : [])) ?? [],
  );
}

/** What the run left different, by state: its stated changes but those it applied whole, and its skipped entries. */
function differencesLeft(aside: SetAside, applied: AppliedRun | undefined): DifferencesRecord {
  const done = doneKeys(applied);
  const left: Record<Difference, string[]> = { pending: [], drift: [], held: [], skipped: [] };
  for (const { change, state } of aside.differences) {
    if (!change.actionKeys.every((key) => done.has(key))) left[state].push(change.address);
  }
  left.skipped = aside.skippedRecords.map((entry) => `${entry.kind}.${entry.name}`);
  return left;
}

/** The entries the account holds as the manifests say after the run: every one with no change left undone. */
function matchedEntries(
  planned: PlannedRun & { readonly desired: DesiredState },
  applied: AppliedRun | undefined,
) {
  const done = new Set(
    applied?.result.actions.flatMap((action) => (action.outcome === 'done' ? [action.key] : [])) ?? [],
  );
  const open = new Set(
    planned.plan.changes
      .filter((change) => !change.actionKeys.every((key) => done.has(key)))
      .map((change) => entryKey(change)),
  );
  return planned.desired.entries.filter((entry) => !open.has(entryKey(entry)));
}

function objectCounts(
  context: RecordContext,
  planned: PlannedRun & { readonly desired: DesiredState },
  facts: RunFacts,
): ObjectCounts {
  const { desired, live, plan } = planned;
  const owned: Record<KindName, number> = {};
  const drifted: Record<KindName, number> = {};
  for (const kind of context.kinds) {
    owned[kind.name] = ownedCount(kind, desired, live, context.owner);
    drifted[kind.name] = 0;
  }
  // Objects, not changes: an edge with three module changes is one drifted edge.
  for (const object of new Set(plan.changes.map(entryKey))) {
    const kind = object.slice(0, object.indexOf('\u0000')) as KindName;
    drifted[kind] = (drifted[kind] ?? 0) + 1;
  }
  // After a complete apply the account holds exactly the desired entries (bar module-only edges that are missing).
  if (isWhole(facts)) {
    for (const kind of context.kinds) {
      owned[kind.name] = desired.entries.filter(
        (entry) =>
          entry.kind === kind.name && !(entry.id !== undefined && live.missingIds.includes(entry.id)),
      ).length;
    }
  }
  return { owned, drifted, expiring: expiringObjects(context, desired, live) };
}

/** Every action of the plan went: the apply succeeded, and nothing was skipped or held. */
function isWhole(facts: RunFacts): boolean {
  const { applied, aside } = facts;
  if (applied === undefined || aside === undefined || !applySucceeded(applied.result)) return false;
  return aside.skipped.length === 0 && aside.held.length === 0;
}

function ownedCount(kind: Kind, desired: DesiredState, live: LiveState, owner: string): number {
  const objects = live.objects[kind.name] ?? [];
  if (kind.ownership === 'metadata') return objects.filter((object) => object.marker?.owner === owner).length;
  return desired.entries.filter((entry) => entry.kind === kind.name && objects.some((o) => o.id === entry.id))
    .length;
}

/**
 * When each managed object of a kind that expires (`Kind.expiry`: a CA's
 * certificate) stops working, labelled with its live ID ('' before it exists).
 */
function expiringObjects(context: RecordContext, desired: DesiredState, live: LiveState): ExpiringObject[] {
  const out: ExpiringObject[] = [];
  for (const kind of context.kinds) {
    if (kind.expiry === undefined) continue;
    const objects = live.objects[kind.name] ?? [];
    for (const entry of desired.entries) {
      if (entry.kind !== kind.name) continue;
      const notAfter = kind.expiry.notAfter(entry.spec);
      if (notAfter === undefined) continue;
      const object = objects.find((candidate) =>
        entry.id === undefined
          ? candidate.marker?.owner === context.owner && candidate.marker.name === entry.name
          : candidate.id === entry.id,
      );
      out.push({ kind: kind.name, name: entry.name, id: object?.id ?? '', notAfter });
    }
  }
  return out;
}

/**
 * Each entry of the last valid manifests whose kind says when its objects
 * stop working, with that date and the entry's place. Reading a date may
 * parse a certificate: once per desired state, not once per run.
 */
function expiriesOf(
  kinds: readonly Kind[],
  desired: DesiredState | null,
  previous: ReconcileRecord['expiries'],
): ReconcileRecord['expiries'] {
  if (desired === null) return null;
  if (previous?.hash === desired.hash) return previous;
  const kindByName = new Map(kinds.map((kind) => [kind.name, kind]));
  const list: ObservedExpiry[] = [];
  for (const entry of desired.entries) {
    const notAfter = kindByName.get(entry.kind)?.expiry?.notAfter(entry.spec);
    if (notAfter === undefined) continue;
    const { file, line, column } = entry.location;
    list.push({ kind: entry.kind, name: entry.name, notAfter, file, line, column });
  }
  return { hash: desired.hash, list };
}

/** The commit read at the run's start is live once a run from it leaves the account as its files say. */
function gitRecord(previous: GitRecord, commit: string | null, outcome: RunOutcome, at: string): GitRecord {
  const live = outcome.result === 'in-sync' || outcome.result === 'applied';
  if (commit === null || !live || commit === previous.lastAppliedCommit)
    return { ...previous, checkoutCommit: commit };
  return { checkoutCommit: commit, lastAppliedCommit: commit, lastAppliedAt: at };
}

function entryKey(entry: Pick<DesiredEntry, 'kind' | 'name'> | Plan['changes'][number]): string {
  return `${entry.kind}\u0000${entry.name}`;
}
