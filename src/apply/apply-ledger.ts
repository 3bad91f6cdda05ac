import type { Logger } from 'pino';
import type { Action, Operation, Plan, ResourceChange } from '../plan/plan.js';
import { describeActionFailure } from './action-failure.js';
import { type ActionDone, ALREADY_ABSENT } from './action-performer.js';
import type { ActionResult, AppliedCounts, ApplyResult } from './apply-result.js';
import { ActionInterruptedError, OutcomeUnsettledError } from './interruption-outcomes.js';

export type ProgressEvent =
  | {
      readonly type: 'started';
      readonly action: Action;
      /** Actions finished so far, whatever their outcome. */
      readonly finished: number;
      readonly total: number;
      readonly rateLimitWaitMs: number;
    }
  | {
      readonly type: 'finished';
      readonly action: Action;
      readonly result: ActionResult;
      readonly finished: number;
      readonly total: number;
      readonly rateLimitWaitMs: number;
    };

export interface ApplyLedgerOptions {
  readonly logger: Logger;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  /** Milliseconds spent waiting for the request budget since the apply started. */
  readonly rateLimitWaitMs: () => number;
  readonly onProgress?: ((event: ProgressEvent) => void) | undefined;
}

const APPLIED_BUCKET: Readonly<Record<Operation, keyof AppliedCounts>> = {
  create: 'created',
  update: 'updated',
  adopt: 'adopted',
  'put-module': 'modulesWritten',
  'delete-module': 'modulesRemoved',
  replace: 'replaced',
  delete: 'deleted',
};

/**
 * What happened to each action of one apply: records every outcome as it
 * comes (telling the progress listener), and sums them up at the end into
 * the ApplyResult.
 */
export class ApplyLedger {
  readonly #plan: Plan;
  readonly #options: ApplyLedgerOptions;
  readonly #log: Logger;
  readonly #startedAt: number;
  readonly #changes: ReadonlyMap<string, ResourceChange>;
  readonly #results = new Map<string, ActionResult>();
  readonly #startedAtByKey = new Map<string, number>();

  constructor(plan: Plan, options: ApplyLedgerOptions) {
    this.#plan = plan;
    this.#options = options;
    this.#log = options.logger;
    this.#startedAt = options.clock();
    this.#changes = new Map(plan.changes.map((change) => [change.address, change]));
  }

  started(action: Action): void {
    this.#startedAtByKey.set(action.key, this.#options.clock());
    this.#emit({ type: 'started', action, ...this.#counts() });
  }

  done(action: Action, done: ActionDone): void {
    this.#record(action, {
      ...this.#base(action),
      outcome: 'done',
      ...(done.id === undefined ? {} : { id: done.id }),
      ...(done.note === undefined ? {} : { note: done.note }),
      durationMs: this.#durationOf(action),
    });
  }

  /** An action that did not get done: failed, or left `interrupted` or `unknown` by the interruption. */
  failed(action: Action, error: unknown): void {
    if (error instanceof ActionInterruptedError) {
      this.#record(action, {
        ...this.#base(action),
        outcome: 'interrupted',
        reason: error.message,
        durationMs: this.#durationOf(action),
      });
      return;
    }
    const failure = describeActionFailure(error);
    if (error instanceof OutcomeUnsettledError) {
      this.#log.warn({ action: action.key }, 'outcome unknown after the interruption');
      this.#record(action, {
        ...this.#base(action),
        outcome: 'unknown',
        error: failure,
        reason: error.message,
        durationMs: this.#durationOf(action),
      });
      return;
    }
    this.#log.warn(
      { action: action.key, code: failure.code, status: failure.status, serviceCode: failure.serviceCode },
      'action failed',
    );
    this.#record(action, {
      ...this.#base(action),
      outcome: 'failed',
      error: failure,
      durationMs: this.#durationOf(action),
    });
  }

  skipped(action: Action, failed: Action): void {
    this.#record(action, {
      ...this.#base(action),
      outcome: 'skipped',
      reason: `depends on ${failed.key} which failed`,
    });
  }

  /** Actions the interruption kept from starting; no progress event, the summary counts them. */
  notStarted(actions: readonly Action[]): void {
    for (const action of actions) {
      this.#results.set(action.key, {
        ...this.#base(action),
        outcome: 'interrupted',
        reason: 'not started: the apply was interrupted first',
      });
    }
  }

  /** The result of the apply; every action must have been recorded. */
  result(createdIds: ReadonlyMap<string, string>): ApplyResult {
    const actions = this.#plan.actions.map((action): ActionResult => {
      const result = this.#results.get(action.key);
      if (result === undefined) throw new Error(`executor lost track of ${action.key}`);
      return result;
    });
    const count = (outcome: ActionResult['outcome']): number =>
      actions.filter((result) => result.outcome === outcome).length;
    const notStarted = count('interrupted');
    const unknown = count('unknown');
    return {
      actions,
      applied: countApplied(this.#plan, actions),
      done: count('done'),
      failed: count('failed'),
      skipped: count('skipped'),
      notStarted,
      unknown,
      interrupted: notStarted + unknown > 0,
      durationMs: this.#options.clock() - this.#startedAt,
      rateLimitWaitMs: this.#options.rateLimitWaitMs(),
      createdIds: Object.fromEntries(createdIds),
    };
  }

  #record(action: Action, result: ActionResult): void {
    this.#results.set(action.key, result);
    this.#emit({ type: 'finished', action, result, ...this.#counts() });
  }

  #counts(): { finished: number; total: number; rateLimitWaitMs: number } {
    return {
      finished: this.#results.size,
      total: this.#plan.actions.length,
      rateLimitWaitMs: this.#options.rateLimitWaitMs(),
    };
  }

  /** A broken progress display must not turn a done action into a failed one. */
  #emit(event: ProgressEvent): void {
    try {
      this.#options.onProgress?.(event);
    } catch (error) {
      this.#log.error({ err: error }, 'progress listener failed');
    }
  }

  #durationOf(action: Action): number {
    const now = this.#options.clock();
    return now - (this.#startedAtByKey.get(action.key) ?? now);
  }

  #base(action: Action): Pick<ActionResult, 'key' | 'op' | 'kind' | 'name' | 'change' | 'id' | 'source'> {
    const id = this.#changes.get(action.change)?.id;
    return {
      key: action.key,
      op: action.op,
      kind: action.kind,
      name: action.name,
      change: action.change,
      ...(id === undefined ? {} : { id }),
      ...(action.source === undefined ? {} : { source: action.source }),
    };
  }
}

/** The operations whose every action is a DELETE: a 404 means there was nothing to remove. */
const REMOVALS: ReadonlySet<Operation> = new Set(['delete', 'delete-module']);

/**
 * Resource changes whose every action is done; a change the plan does not
 * describe counts by its action's op. A delete whose every removal found
 * the object (or module) already gone counts as `alreadyAbsent`, not as
 * deleted.
 */
function countApplied(plan: Plan, results: readonly ActionResult[]): AppliedCounts {
  const counts = {
    created: 0,
    updated: 0,
    replaced: 0,
    deleted: 0,
    alreadyAbsent: 0,
    adopted: 0,
    modulesWritten: 0,
    modulesRemoved: 0,
  };
  const opByChange = new Map(plan.changes.map((change) => [change.address, change.op]));
  const doneByChange = new Map<string, boolean>();
  const absentByChange = new Map<string, boolean>();
  const firstOp = new Map<string, Operation>();
  for (const result of results) {
    doneByChange.set(result.change, (doneByChange.get(result.change) ?? true) && result.outcome === 'done');
    if (REMOVALS.has(result.op)) {
      absentByChange.set(
        result.change,
        (absentByChange.get(result.change) ?? true) && result.note === ALREADY_ABSENT,
      );
    }
    if (!firstOp.has(result.change)) firstOp.set(result.change, result.op);
  }
  for (const [change, done] of doneByChange) {
    const op = opByChange.get(change) ?? firstOp.get(change);
    if (!done || op === undefined) continue;
    const absent = REMOVALS.has(op) && absentByChange.get(change) === true;
    counts[absent ? 'alreadyAbsent' : APPLIED_BUCKET[op]] += 1;
  }
  return counts;
}
