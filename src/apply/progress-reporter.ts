import type { Logger } from 'pino';
import { formatLocation } from '../manifest/source-location.js';
import { visibleText } from '../visible-text.js';
import type { ActionResult, ApplyResult } from './apply-result.js';
import type { ProgressEvent } from './execute-plan.js';
import {
  type BudgetView,
  budgetWaitMs,
  fitRow,
  formatDuration,
  formatNextSlot,
  type ProgressRow,
  type RowPart,
  rowWidth,
} from './progress-row.js';

export type { BudgetView } from './progress-row.js';

export interface ProgressReporterOptions {
  /**
   * The terminal row the live line is drawn on (stderr's: stdout is for
   * results). Without one, progress goes to the logger: one line per
   * finished action and a progress line every `logEveryMs`.
   */
  readonly row?: ProgressRow;
  readonly logger: Logger;
  /** The client's request budget: the ETA and "waiting for the request budget" come from it. */
  readonly budget?: BudgetView;
  /** Milliseconds since the epoch. @default Date.now */
  readonly clock?: () => number;
  /** How often the ETA is recomputed (and the live line redrawn), in milliseconds. @default 1000 */
  readonly tickMs?: number;
  /** How often a progress line is logged without a row, in milliseconds. @default 10000 */
  readonly logEveryMs?: number;
  /**
   * Without a row: where human lines go (stderr off a terminal), one per
   * finished action and a progress line every `logEveryMs`. Without it,
   * they are the logger's records (`--log-format json`).
   */
  readonly lines?: (line: string) => void;
  /**
   * The apply's stop (Ctrl-C, SIGTERM): from then on the row says how many
   * requests are still in flight instead of counting the actions the stop
   * kept from starting as they are written off.
   */
  readonly signal?: AbortSignal;
}

/**
 * No rate, and no ETA from the pace, before this many milliseconds of
 * applying: the first actions finish in a burst (concurrency, a fresh
 * budget), and a rate of 448.3/s in the first second says nothing of the next minute.
 */
export const MIN_RATE_WINDOW_MS = 5000;

export interface ProgressReporter {
  readonly onProgress: (event: ProgressEvent) => void;
  /** Stops the timer and clears the live line so that what follows starts on a clean line. */
  finish(): void;
}

/** Where an apply stands, as the progress events and the budget tell it. */
interface ApplyProgress {
  finished: number;
  /** Actions finished as `done`. */
  done: number;
  total: number;
  rateLimitWaitMs: number;
  /** When the first action started; undefined before. */
  startedAt: number | undefined;
  readonly running: Set<string>;
  /** The key of the action that started last and is still running. */
  current: string | undefined;
  /** Milliseconds the request budget held requests back, as sampled every tick. */
  heldMs: number;
  /** The last sample: when, and whether the budget was holding requests back then. */
  sampledAt: number | undefined;
  held: boolean;
  /** Set once the apply was asked to stop. */
  stopping: boolean;
}

/**
 * The parts of the live line, in the order they are shown. They are dropped
 * in DROP_ORDER when the terminal is too narrow (docs/apply.md, Progress).
 */
const PARTS = ['label', 'counts', 'rate', 'eta', 'focus', 'running', 'countdown', 'waited'] as const;
type Part = (typeof PARTS)[number];

/** The least useful part first: the counts, the ETA and what the apply is doing are kept longest. */
export const DROP_ORDER: readonly Part[] = ['waited', 'countdown', 'running', 'rate', 'label', 'eta'];

/**
 * On a terminal: one row rewritten in place every `tickMs`: done/total, the
 * rate so far, an ETA, and either the action that started last or "waiting
 * for the request budget (next slot in 12 s)". The ETA is recomputed at
 * every tick, so it counts down while requests wait for the budget.
 * Otherwise: a log line per finished action and a progress line every
 * `logEveryMs`, for CI logs and log collectors.
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const log = options.logger.child({ component: 'progress' });
  const clock = options.clock ?? Date.now;
  const logEveryMs = options.logEveryMs ?? 10_000;
  const { row, budget } = options;
  const state: ApplyProgress = {
    finished: 0,
    done: 0,
    total: 0,
    rateLimitWaitMs: 0,
    startedAt: undefined,
    running: new Set(),
    current: undefined,
    heldMs: 0,
    sampledAt: undefined,
    held: false,
    stopping: false,
  };
  const { lines } = options;
  let timer: NodeJS.Timeout | undefined;
  let loggedAt = 0;
  const tick = (): void => {
    const now = clock();
    sample(state, budget, now);
    if (row !== undefined) row.show(progressLine(state, budget, now, rowWidth(row)));
    else if (now - loggedAt >= logEveryMs) {
      loggedAt = now;
      if (lines !== undefined) lines(progressLine(state, budget, now, Number.POSITIVE_INFINITY));
      else logProgress(log, state, budget, now);
    }
  };
  const onStop = (): void => {
    state.stopping = true;
    if (row !== undefined) row.show(progressLine(state, budget, clock(), rowWidth(row)));
    else lines?.(progressLine(state, budget, clock(), Number.POSITIVE_INFINITY));
  };
  if (options.signal?.aborted) state.stopping = true;
  else options.signal?.addEventListener('abort', onStop, { once: true });
  return {
    onProgress: (event) => {
      const now = clock();
      sample(state, budget, now);
      track(state, event, now);
      if (timer === undefined) {
        loggedAt = now;
        timer = setInterval(tick, options.tickMs ?? 1000);
        timer.unref();
      }
      if (row !== undefined) row.show(progressLine(state, budget, now, rowWidth(row)));
      else if (event.type !== 'finished') return;
      else if (lines !== undefined) {
        const line = actionResultLine(event.result);
        if (line !== undefined) lines(line);
      } else logActionResult(log, event.result, event.finished, event.total);
    },
    finish: () => {
      options.signal?.removeEventListener('abort', onStop);
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      row?.clear();
    },
  };
}

function track(state: ApplyProgress, event: ProgressEvent, now: number): void {
  state.startedAt ??= now;
  state.finished = event.finished;
  state.total = event.total;
  state.rateLimitWaitMs = event.rateLimitWaitMs;
  if (event.type === 'started') {
    state.running.add(event.action.key);
    state.current = event.action.key;
  } else {
    if (event.result.outcome === 'done') state.done += 1;
    state.running.delete(event.action.key);
    if (state.current === event.action.key) state.current = [...state.running].at(-1);
  }
}

/** Counts the time since the last sample as held when the budget was holding requests back then. */
function sample(state: ApplyProgress, budget: BudgetView | undefined, now: number): void {
  if (state.sampledAt !== undefined && state.held) state.heldMs += now - state.sampledAt;
  state.sampledAt = now;
  state.held = budgetWaitMs(budget) !== undefined;
}

interface ProgressFigures {
  /** Actions finished per second so far. */
  readonly perSecond: number | undefined;
  /** Milliseconds left: the later of when the budget lets the last request go and when the pace so far ends. */
  readonly etaMs: number | undefined;
  /** Set while requests wait for the budget: milliseconds until its next slot. */
  readonly nextSlotInMs: number | undefined;
}

function progressFigures(state: ApplyProgress, budget: BudgetView | undefined, now: number): ProgressFigures {
  const elapsedMs = state.startedAt === undefined ? 0 : now - state.startedAt;
  const measured = state.finished > 0 && elapsedMs >= MIN_RATE_WINDOW_MS;
  const perSecond = measured ? (state.finished * 1000) / elapsedMs : undefined;
  const remaining = state.total - state.finished;
  const nextSlotInMs = budgetWaitMs(budget);
  if (remaining <= 0) return { perSecond, etaMs: undefined, nextSlotInMs };
  // Every action left costs at least one request, but those running and not waiting for the budget have sent theirs.
  const sent = Math.max(0, state.running.size - (budget?.snapshot().waiting ?? 0));
  const budgetEtaMs = budget?.sendableInMs(remaining - sent);
  // The pace of the actions while the budget did not hold them back: concurrency and the service's answers.
  const workingMs = elapsedMs - state.heldMs;
  const paceEtaMs = measured && workingMs > 0 ? (remaining * workingMs) / state.finished : undefined;
  const etas = [budgetEtaMs, paceEtaMs].filter((eta): eta is number => eta !== undefined);
  return { perSecond, etaMs: etas.length === 0 ? undefined : Math.max(...etas), nextSlotInMs };
}

function logProgress(log: Logger, state: ApplyProgress, budget: BudgetView | undefined, now: number): void {
  const figures = progressFigures(state, budget, now);
  log.info(
    {
      finished: state.finished,
      total: state.total,
      ...(figures.perSecond === undefined ? {} : { perSecond: round(figures.perSecond) }),
      ...(figures.etaMs === undefined ? {} : { etaSeconds: Math.ceil(figures.etaMs / 1000) }),
      ...(figures.nextSlotInMs === undefined ? {} : { waitingForBudgetMs: figures.nextSlotInMs }),
    },
    'progress',
  );
}

/**
 * `Applying 12/300 · 2.0/s · ETA 2m24s · waiting for the request budget (next slot in 12 s) · waited 30.0s on the rate limit`,
 * fitted to `width` by dropping parts in DROP_ORDER.
 */
function progressLine(
  state: ApplyProgress,
  budget: BudgetView | undefined,
  now: number,
  width: number,
): string {
  if (state.stopping) return fitRow(stoppingParts(state), DROP_ORDER, width);
  const figures = progressFigures(state, budget, now);
  const others = state.running.size - 1;
  const waiting = figures.nextSlotInMs !== undefined;
  const parts: RowPart<Part>[] = [
    { key: 'label', text: 'Applying', before: ' ' },
    { key: 'counts', text: `${state.finished}/${state.total}`, before: ' ' },
    {
      key: 'rate',
      text: figures.perSecond === undefined ? undefined : formatRate(figures.perSecond),
      before: ' · ',
    },
    {
      key: 'eta',
      text: figures.etaMs === undefined ? undefined : `ETA ${formatDuration(figures.etaMs)}`,
      before: ' · ',
    },
    { key: 'focus', text: waiting ? 'waiting for the request budget' : state.current, before: ' · ' },
    { key: 'running', text: !waiting && others > 0 ? `(+${others} running)` : undefined, before: ' ' },
    {
      key: 'countdown',
      text: figures.nextSlotInMs === undefined ? undefined : formatNextSlot(figures.nextSlotInMs),
      before: ' ',
    },
    {
      key: 'waited',
      text:
        state.rateLimitWaitMs > 0
          ? `waited ${formatSeconds(state.rateLimitWaitMs)} on the rate limit`
          : undefined,
      before: ' · ',
    },
  ];
  return fitRow(parts, DROP_ORDER, width);
}

/**
 * `Stopping: 3 requests in flight · 57/300 done`: after the stop the count
 * of done actions no longer moves with the ones written off unstarted; what
 * is left to wait for is the requests on the wire.
 */
function stoppingParts(state: ApplyProgress): RowPart<Part>[] {
  const inFlight = state.running.size;
  return [
    {
      key: 'focus',
      text: `Stopping: ${inFlight} request${inFlight === 1 ? '' : 's'} in flight`,
      before: ' ',
    },
    { key: 'counts', text: `${state.done}/${state.total} done`, before: ' · ' },
  ];
}

function formatRate(perSecond: number): string {
  return perSecond >= 1 ? `${perSecond.toFixed(1)}/s` : `${(perSecond * 60).toFixed(1)}/min`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function logActionResult(log: Logger, result: ActionResult, finished: number, total: number): void {
  const fields = {
    action: result.key,
    op: result.op,
    kind: result.kind,
    name: result.name,
    outcome: result.outcome,
    finished,
    total,
    ...(result.id === undefined ? {} : { id: result.id }),
    ...(result.durationMs === undefined ? {} : { durationMs: result.durationMs }),
    ...(result.note === undefined ? {} : { note: result.note }),
    ...(result.reason === undefined ? {} : { reason: result.reason }),
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(result.source === undefined ? {} : { source: formatLocation(result.source) }),
  };
  if (result.outcome === 'done') log.info(fields, 'action finished');
  else log.warn(fields, 'action not applied');
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/**
 * `Apply complete: 3 created, 1 updated, 0 replaced, 2 deleted, 0 failed, 0 skipped in 4.2s.`
 * `runMs` is the whole run's time (loading, reading the account, planning
 * and applying), not the executor's alone (`result.durationMs`): a run that
 * spent 33 s reading and 0.2 s writing took 33.2 s.
 */
export function formatApplySummary(result: ApplyResult, runMs: number): string {
  const verdict = result.interrupted
    ? 'Apply interrupted'
    : result.failed + result.skipped > 0
      ? 'Apply incomplete'
      : 'Apply complete';
  const { created, updated, replaced, deleted, alreadyAbsent, adopted, modulesWritten, modulesRemoved } =
    result.applied;
  // The same words as the plan's summary line, so the two can be read side by side.
  const counts = [
    `${created} created`,
    `${updated} updated`,
    `${replaced} replaced`,
    `${deleted} deleted`,
    ...(alreadyAbsent > 0 ? [`${alreadyAbsent} already absent`] : []),
    ...(adopted > 0 ? [`${adopted} adopted`] : []),
    ...(modulesWritten > 0 ? [`${modulesWritten} module(s) written`] : []),
    ...(modulesRemoved > 0 ? [`${modulesRemoved} module(s) removed`] : []),
    `${result.failed} failed`,
    `${result.skipped} skipped`,
    ...(result.notStarted > 0 ? [`${result.notStarted} interrupted`] : []),
    ...(result.unknown > 0 ? [`${result.unknown} unknown`] : []),
  ];
  return `${verdict}: ${counts.join(', ')} in ${formatSeconds(runMs)}.`;
}

/**
 * What to do after an apply that did not finish, as the line under its
 * summary; undefined when it finished. Nothing applied is undone and every
 * outcome is settled or read back by the next plan, so running the same
 * apply again finishes the job.
 */
export function formatFinishHint(result: ApplyResult): string | undefined {
  if (result.interrupted) {
    const unknown =
      result.unknown === 0
        ? ''
        : `; it reads back whether the ${result.unknown} action(s) of unknown outcome landed`;
    return `To finish, run the same apply again: it plans from the account as it is now and sends only what is left${unknown} (\`edgesync plan\` shows what is left first).`;
  }
  if (result.failed + result.skipped > 0) {
    return 'To finish, fix what failed (above) and run the same apply again: what was applied stays, and only what is left is sent.';
  }
  return undefined;
}

/**
 * One line per action that failed, was skipped or has an unknown outcome,
 * pointing at the manifest:
 * `examples/rules.yaml:4:3: create:ip_policy_rules.office: failed: invalid_field (cidr): …`.
 * Interrupted actions are a count in the summary, not a line each: after a
 * Ctrl-C, hundreds of lines saying "not started" hide the few that matter.
 */
export function formatUnappliedActions(result: ApplyResult): string[] {
  return result.actions.flatMap((action) => {
    const line = action.outcome === 'done' ? undefined : actionResultLine(action);
    return line === undefined ? [] : [line];
  });
}

/**
 * One finished action as a person reads it, Terraform's way:
 * `create:ip_policy_rules.office: done in 0.1s [id=ipr_…]`, or with its
 * manifest place and why when it was not applied. Undefined for an action
 * the interruption kept from running: those are a count in the summary.
 */
export function actionResultLine(action: ActionResult): string | undefined {
  if (action.outcome === 'interrupted') return undefined;
  if (action.outcome === 'done') {
    const took =
      action.durationMs === undefined
        ? ''
        : ` in ${action.durationMs < 1000 ? `${Math.round(action.durationMs)}ms` : formatSeconds(action.durationMs)}`;
    const id = action.id === undefined ? '' : ` [id=${action.id}]`;
    const note = action.note === undefined ? '' : ` (${action.note})`;
    return visibleText(`${action.key}: done${took}${id}${note}`);
  }
  const where = action.source === undefined ? '' : `${formatLocation(action.source)}: `;
  if (action.outcome === 'failed' && action.error !== undefined) {
    const { error } = action;
    const service = [
      error.status === undefined ? undefined : `HTTP ${error.status}`,
      error.serviceCode,
      error.field === undefined ? undefined : `field ${error.field}`,
    ].filter((part) => part !== undefined);
    // Names and service messages: one line each, nothing raw for the terminal to interpret.
    return visibleText(
      `${where}${action.key}: failed: ${error.message}${service.length > 0 ? ` (${service.join(', ')})` : ''}`,
    );
  }
  return visibleText(`${where}${action.key}: ${action.outcome}: ${action.reason ?? ''}`);
}
