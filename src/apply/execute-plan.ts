import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { ApiRequest, ApiResponse, EdgeApi } from '../api/edge-api.js';
import { EdgesyncError } from '../errors.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { Action, Operation, Plan, ResourceChange } from '../plan/plan.js';
import { describeActionFailure, isAlreadyAbsent, isOutcomeUnknown } from './action-failure.js';
import type { ActionResult, AppliedCounts, ApplyResult } from './apply-result.js';
import { MarkerLookup } from './marker-lookup.js';
import { resolvePendingIds } from './pending-ids.js';
import { moduleWriteLanded } from './unknown-outcome.js';

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

export interface ExecutePlanOptions {
  readonly api: EdgeApi;
  /** Actions in flight at once. @default 4 */
  readonly concurrency?: number;
  /**
   * Once aborted no action starts; actions in flight get `graceMs` to finish,
   * then their requests are aborted too.
   */
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** How long in-flight actions may run after `signal` aborts, in milliseconds. @default 10_000 */
  readonly graceMs?: number;
  /** Milliseconds since the epoch. @default Date.now */
  readonly clock?: () => number;
  /**
   * The kinds registry (`kindByName`), for the module read-back after a
   * module write whose outcome is unknown. Without it the read-back is a GET
   * on the write's own path, which the service answers for every module.
   */
  readonly kindByName?: (name: KindName) => Pick<Kind, 'moduleReadRequest'>;
  /**
   * Tries of one write before the action fails: each send, and each lookup
   * or read-back that failed, is one. An unknown outcome is always resolved
   * by a lookup (creates) or read-back (module writes), the last one's too;
   * only a write that did not land is sent again. Every send may meet an
   * unknown outcome again, so the chance that all of them do is that chance
   * to the power of the attempts: at 15% per send (a 5xx or drop after
   * sending), 3 attempts leave 1 create in 300 unresolved, 5 leave 1 in
   * 13,000.
   * @default 5
   */
  readonly maxAttempts?: number;
}

/** What one action did, beyond "done". */
interface ActionDone {
  readonly id?: string;
  readonly note?: string;
}

const APPLIED_BUCKET: Readonly<Record<Operation, keyof AppliedCounts>> = {
  create: 'created',
  update: 'updated',
  adopt: 'adopted',
  'put-module': 'modules',
  'delete-module': 'modules',
  replace: 'replaced',
  delete: 'deleted',
};

/**
 * Carries out a plan: each action starts as soon as every action it depends
 * on is done, at most `concurrency` at a time; the client keeps all of them
 * inside its request budget. A failure fails only the actions that depend on
 * it. The result accounts for every action of the plan.
 */
export async function executePlan(plan: Plan, options: ExecutePlanOptions): Promise<ApplyResult> {
  const clock = options.clock ?? Date.now;
  const startedAt = clock();
  const log = options.logger.child({ component: 'executor' });
  const { api } = options;
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new EdgesyncError(
      'invalid_option',
      `concurrency: expected a whole number of at least 1 (found ${concurrency})`,
    );
  }
  const maxAttempts = options.maxAttempts ?? 5;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new EdgesyncError(
      'invalid_option',
      `maxAttempts: expected a whole number of at least 1 (found ${maxAttempts})`,
    );
  }
  checkDependencies(plan.actions);

  const total = plan.actions.length;
  const waitAtStart = api.stats().rateLimitWaitMs;
  const rateLimitWaitMs = (): number => api.stats().rateLimitWaitMs - waitAtStart;
  const changesByAddress = new Map(plan.changes.map((change) => [change.address, change]));
  const preexistingIds = new Set(Object.keys(plan.fingerprints));
  const dependents = new Map<string, Action[]>();
  const unmetDependencies = new Map<string, number>();
  for (const action of plan.actions) {
    unmetDependencies.set(action.key, new Set(action.dependsOn).size);
    for (const dependency of new Set(action.dependsOn)) {
      dependents.set(dependency, [...(dependents.get(dependency) ?? []), action]);
    }
  }
  const results = new Map<string, ActionResult>();
  const createdIds = new Map<string, string>();
  let finished = 0;

  const inFlight = new AbortController();
  const markerLookup = new MarkerLookup({ api, preexistingIds, signal: inFlight.signal });
  let graceTimer: NodeJS.Timeout | undefined;
  const queue = new PQueue({ concurrency });
  const stop = (): void => {
    if (inFlight.signal.aborted || graceTimer !== undefined) return;
    log.warn(
      { running: queue.pending, graceMs: options.graceMs ?? 10_000 },
      'stopping: no new actions start',
    );
    queue.clear();
    graceTimer = setTimeout(
      () => inFlight.abort(new EdgesyncError('interrupted', 'apply interrupted')),
      options.graceMs ?? 10_000,
    );
    graceTimer.unref();
  };
  const stopping = (): boolean => graceTimer !== undefined || inFlight.signal.aborted;
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });

  // A broken progress display must not turn a done action into a failed one.
  const emit = (event: ProgressEvent): void => {
    try {
      options.onProgress?.(event);
    } catch (error) {
      log.error({ err: error }, 'progress listener failed');
    }
  };

  const record = (action: Action, result: ActionResult): void => {
    results.set(action.key, result);
    finished += 1;
    emit({ type: 'finished', action, result, finished, total, rateLimitWaitMs: rateLimitWaitMs() });
  };

  const skipDependentsOf = (failedKey: string, rootKey: string): void => {
    for (const dependent of dependents.get(failedKey) ?? []) {
      if (results.has(dependent.key)) continue;
      record(dependent, {
        ...baseResult(dependent, changesByAddress),
        outcome: 'skipped',
        reason: `depends on ${rootKey} which failed`,
      });
      skipDependentsOf(dependent.key, rootKey);
    }
  };

  const schedule = (action: Action): void => {
    if (stopping()) return;
    queue
      .add(() => run(action))
      .catch((error: unknown) => log.error({ err: error, key: action.key }, 'scheduler error'));
  };

  const run = async (action: Action): Promise<void> => {
    if (stopping()) return;
    emit({ type: 'started', action, finished, total, rateLimitWaitMs: rateLimitWaitMs() });
    const actionStartedAt = clock();
    try {
      const done = await perform(action);
      if (done.id !== undefined && action.request.method === 'POST') createdIds.set(action.key, done.id);
      const base = baseResult(action, changesByAddress);
      record(action, {
        ...base,
        outcome: 'done',
        ...(done.id === undefined ? {} : { id: done.id }),
        ...(done.note === undefined ? {} : { note: done.note }),
        durationMs: clock() - actionStartedAt,
      });
      for (const dependent of dependents.get(action.key) ?? []) {
        const left = (unmetDependencies.get(dependent.key) ?? 0) - 1;
        unmetDependencies.set(dependent.key, left);
        if (left === 0 && !results.has(dependent.key)) schedule(dependent);
      }
    } catch (error) {
      const failure = describeActionFailure(error);
      log.warn(
        { key: action.key, code: failure.code, status: failure.status, serviceCode: failure.serviceCode },
        'action failed',
      );
      record(action, {
        ...baseResult(action, changesByAddress),
        outcome: 'failed',
        error: failure,
        durationMs: clock() - actionStartedAt,
      });
      skipDependentsOf(action.key, action.key);
    }
  };

  const send = <T>(action: Action, request: ApiRequest): Promise<ApiResponse<T>> =>
    api.request<T>(request, { signal: inFlight.signal, kind: action.kind });

  const readBackRequest = (action: Action, written: ApiRequest): ApiRequest => {
    const change = changesByAddress.get(action.change);
    if (options.kindByName && change?.id !== undefined && change.module !== undefined) {
      return options
        .kindByName(action.kind)
        .moduleReadRequest(
          { id: change.id, ...(change.routeId === undefined ? {} : { routeId: change.routeId }) },
          change.module,
        );
    }
    return { method: 'GET', path: written.path };
  };

  const perform = async (action: Action): Promise<ActionDone> => {
    const request = resolvePendingIds(action.request, createdIds);
    if (request.method === 'DELETE') {
      try {
        await send(action, request);
        return {};
      } catch (error) {
        // A DELETE whose first answer was lost comes back 404 on retry: the goal is reached either way.
        if (isAlreadyAbsent(error)) return { note: 'already absent' };
        throw error;
      }
    }
    let attempts = 0;
    // Set while a send's outcome is unknown and not yet resolved by a lookup or read-back.
    let unknown: unknown;
    for (;;) {
      if (unknown === undefined) {
        attempts += 1;
        try {
          return await sendWrite(action, request);
        } catch (error) {
          if (!isOutcomeUnknown(error) || stopping()) throw error;
          if (request.method === 'POST' && action.marker === undefined) throw error;
          log.warn(
            { key: action.key, attempts },
            request.method === 'POST'
              ? 'create outcome unknown: looking it up by its marker'
              : 'write outcome unknown: reading it back',
          );
          unknown = error;
        }
      }
      let resolved: ActionDone | undefined;
      try {
        resolved = await resolveUnknownOutcome(action, request);
      } catch (error) {
        // The outcome is still unknown: look again if tries are left, never send blindly.
        attempts += 1;
        if (attempts > maxAttempts || stopping()) throw error;
        log.warn({ key: action.key, attempts, err: error }, 'lookup after an unknown outcome failed');
        continue;
      }
      if (resolved !== undefined) return resolved;
      if (attempts >= maxAttempts || stopping()) throw unknown;
      unknown = undefined;
    }
  };

  const sendWrite = async (action: Action, request: ApiRequest): Promise<ActionDone> => {
    const response = await send<{ id?: unknown }>(action, request);
    if (request.method !== 'POST') return {};
    const id = response.body?.id;
    if (typeof id !== 'string') {
      throw new EdgesyncError(
        'unexpected_response',
        `${request.method} ${request.path} answered without an id`,
      );
    }
    return { id };
  };

  /** Whether an outcome-unknown write landed: what it did if so, undefined if it must be sent again. */
  const resolveUnknownOutcome = async (
    action: Action,
    request: ApiRequest,
  ): Promise<ActionDone | undefined> => {
    if (request.method === 'POST' && action.marker !== undefined) {
      const id = await markerLookup.find({ path: request.path, kind: action.kind, marker: action.marker });
      return id === undefined ? undefined : { id, note: 'found by its marker after an unknown outcome' };
    }
    const landed = await moduleWriteLanded(api, readBackRequest(action, request), request.body, {
      signal: inFlight.signal,
      kind: action.kind,
    });
    return landed ? { note: 'read back after an unknown outcome' } : undefined;
  };

  try {
    for (const action of plan.actions) {
      if ((unmetDependencies.get(action.key) ?? 0) === 0) schedule(action);
    }
    await queue.onIdle();
  } finally {
    options.signal?.removeEventListener('abort', stop);
    if (graceTimer !== undefined) clearTimeout(graceTimer);
  }
  const lookups = markerLookup.stats();
  if (lookups.lookups > 0) log.info(lookups, 'marker lookups after unknown outcomes');

  const interrupted = plan.actions.some((action) => !results.has(action.key));
  const actions = plan.actions.map(
    (action): ActionResult =>
      results.get(action.key) ?? {
        ...baseResult(action, changesByAddress),
        outcome: 'not-started',
        reason: 'apply was interrupted before it started',
      },
  );
  return {
    actions,
    applied: countApplied(plan, actions),
    done: actions.filter((result) => result.outcome === 'done').length,
    failed: actions.filter((result) => result.outcome === 'failed').length,
    skipped: actions.filter((result) => result.outcome === 'skipped').length,
    notStarted: actions.filter((result) => result.outcome === 'not-started').length,
    interrupted,
    durationMs: clock() - startedAt,
    rateLimitWaitMs: rateLimitWaitMs(),
    createdIds: Object.fromEntries(createdIds),
  };
}

function baseResult(
  action: Action,
  changes: ReadonlyMap<string, ResourceChange>,
): Pick<ActionResult, 'key' | 'op' | 'kind' | 'name' | 'change' | 'id' | 'source'> {
  const id = changes.get(action.change)?.id;
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

/** A plan whose dependencies name missing or later actions cannot be scheduled: refuse it before any request. */
function checkDependencies(actions: readonly Action[]): void {
  const seen = new Set<string>();
  for (const action of actions) {
    if (seen.has(action.key)) {
      throw new EdgesyncError('plan_invalid', `the plan has two actions with the key "${action.key}"`);
    }
    for (const dependency of action.dependsOn) {
      if (!seen.has(dependency)) {
        throw new EdgesyncError(
          'plan_invalid',
          `action "${action.key}" depends on "${dependency}", which is not an earlier action of the plan`,
        );
      }
    }
    seen.add(action.key);
  }
}

/** Resource changes whose every action is done; a change the plan does not describe counts by its action's op. */
function countApplied(plan: Plan, results: readonly ActionResult[]): AppliedCounts {
  const counts = { created: 0, updated: 0, replaced: 0, deleted: 0, adopted: 0, modules: 0 };
  const opByChange = new Map(plan.changes.map((change) => [change.address, change.op]));
  const doneByChange = new Map<string, boolean>();
  const firstOp = new Map<string, Operation>();
  for (const result of results) {
    doneByChange.set(result.change, (doneByChange.get(result.change) ?? true) && result.outcome === 'done');
    if (!firstOp.has(result.change)) firstOp.set(result.change, result.op);
  }
  for (const [change, done] of doneByChange) {
    const op = opByChange.get(change) ?? firstOp.get(change);
    if (done && op !== undefined) counts[APPLIED_BUCKET[op]] += 1;
  }
  return counts;
}
