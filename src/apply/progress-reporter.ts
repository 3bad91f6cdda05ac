import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { formatLocation } from '../manifest/source-location.js';
import { visibleText } from '../visible-text.js';
import type { ActionResult, ApplyResult } from './apply-result.js';
import type { ProgressEvent } from './execute-plan.js';

/** What the reporter reads of the request budget (RequestBudget). */
export interface BudgetView {
  readonly requests: number;
  /** Milliseconds. */
  readonly windowMs: number;
  snapshot(): { readonly free: number; readonly nextSlotInMs: number; readonly waiting: number };
}

export interface ProgressReporterOptions {
  /** Where the live line goes on a TTY (stderr: stdout is for results); `columns` is its width. */
  readonly stream: Writable & { isTTY?: boolean; columns?: number };
  /** Without a TTY, one line per finished action and a progress line every `logEveryMs` go here. */
  readonly logger: Logger;
  /** The client's request budget: the ETA and "waiting for the request budget" come from it. */
  readonly budget?: BudgetView;
  /** Milliseconds since the epoch. @default Date.now */
  readonly clock?: () => number;
  /** How often the live line is redrawn on a TTY, so a countdown moves while nothing finishes, in milliseconds. @default 1000 */
  readonly redrawMs?: number;
  /** How often a progress line is logged without a TTY, in milliseconds. @default 10000 */
  readonly logEveryMs?: number;
}

export interface ProgressReporter {
  readonly onProgress: (event: ProgressEvent) => void;
  /** Stops the timers and clears the live line so that what follows starts on a clean line. */
  finish(): void;
}

/** Where an apply stands, as the progress events tell it. */
interface ApplyProgress {
  finished: number;
  total: number;
  rateLimitWaitMs: number;
  /** When the first action started; undefined before. */
  startedAt: number | undefined;
  readonly running: Set<string>;
  /** The key of the action that started last and is still running. */
  current: string | undefined;
}

/**
 * On a TTY: one line rewritten in place, never wider than the terminal (a
 * wrapped line leaves its first row behind on every redraw): done/total, the
 * rate, an ETA, and either the action that started last or "waiting for the
 * request budget (next slot in 12 s)". Redrawn every `redrawMs` too, so a
 * wait shows as a countdown rather than a frozen line. Otherwise: a log line
 * per finished action and a progress line every `logEveryMs`, for CI logs
 * and log collectors.
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const log = options.logger.child({ component: 'progress' });
  const clock = options.clock ?? Date.now;
  const state: ApplyProgress = {
    finished: 0,
    total: 0,
    rateLimitWaitMs: 0,
    startedAt: undefined,
    running: new Set(),
    current: undefined,
  };
  const tty = options.stream.isTTY === true;
  let drawn = false;
  let timer: NodeJS.Timeout | undefined;
  const draw = (): void => {
    const width = Math.max(20, (options.stream.columns ?? 80) - 1);
    options.stream.write(`\r\x1b[K${progressLine(state, options.budget, clock(), width)}`);
    drawn = true;
  };
  const logProgress = (): void => {
    const figures = progressFigures(state, options.budget, clock());
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
  };
  return {
    onProgress: (event) => {
      track(state, event, clock());
      if (timer === undefined) {
        timer = tty
          ? setInterval(draw, options.redrawMs ?? 1000)
          : setInterval(logProgress, options.logEveryMs ?? 10_000);
        timer.unref();
      }
      if (tty) draw();
      else if (event.type === 'finished') logActionResult(log, event.result, event.finished, event.total);
    },
    finish: () => {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      if (drawn) options.stream.write('\r\x1b[K');
      drawn = false;
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
    state.running.delete(event.action.key);
    if (state.current === event.action.key) state.current = [...state.running].at(-1);
  }
}

interface ProgressFigures {
  /** Actions finished per second so far. */
  readonly perSecond: number | undefined;
  /** Milliseconds left, the larger of what the rate so far and what the request budget allow. */
  readonly etaMs: number | undefined;
  /** Set while requests wait for the budget: milliseconds until its next slot. */
  readonly nextSlotInMs: number | undefined;
}

function progressFigures(state: ApplyProgress, budget: BudgetView | undefined, now: number): ProgressFigures {
  const elapsedMs = state.startedAt === undefined ? 0 : now - state.startedAt;
  const perSecond = state.finished > 0 && elapsedMs > 0 ? (state.finished * 1000) / elapsedMs : undefined;
  const remaining = state.total - state.finished;
  const snapshot = budget?.snapshot();
  // Every action left costs at least one request: beyond the free slots, each full window buys `requests` more.
  const budgetEtaMs =
    budget === undefined || snapshot === undefined
      ? undefined
      : Math.max(0, remaining - snapshot.free) * (budget.windowMs / budget.requests);
  const rateEtaMs = perSecond === undefined ? undefined : (remaining / perSecond) * 1000;
  const etas = [budgetEtaMs, rateEtaMs].filter((eta): eta is number => eta !== undefined);
  const waiting = snapshot !== undefined && snapshot.waiting > 0 && snapshot.nextSlotInMs > 0;
  return {
    perSecond,
    etaMs: etas.length === 0 || remaining === 0 ? undefined : Math.max(...etas),
    nextSlotInMs: waiting ? snapshot.nextSlotInMs : undefined,
  };
}

/**
 * `Applying 12/300 · 2.0/s · ETA 2m24s · waiting for the request budget (next slot in 12 s)`,
 * fitted to `width`: the least useful parts go first (time waited so far, the
 * rate, the word "Applying", the ETA), so that a narrow terminal still shows
 * the counts and what the apply is doing; only then is the line cut.
 */
function progressLine(
  state: ApplyProgress,
  budget: BudgetView | undefined,
  now: number,
  width: number,
): string {
  const figures = progressFigures(state, budget, now);
  const counts = `${state.finished}/${state.total}`;
  const rate = figures.perSecond === undefined ? undefined : formatRate(figures.perSecond);
  const eta = figures.etaMs === undefined ? undefined : `ETA ${formatDuration(figures.etaMs)}`;
  const others = state.running.size - 1;
  const focus =
    figures.nextSlotInMs !== undefined
      ? `waiting for the request budget (next slot in ${Math.ceil(figures.nextSlotInMs / 1000)} s)`
      : state.current === undefined
        ? undefined
        : `${state.current}${others > 0 ? ` (+${others} running)` : ''}`;
  const waited =
    state.rateLimitWaitMs > 0
      ? `waited ${formatSeconds(state.rateLimitWaitMs)} on the rate limit`
      : undefined;
  const variants = [
    [`Applying ${counts}`, rate, eta, focus, waited],
    [`Applying ${counts}`, rate, eta, focus],
    [`Applying ${counts}`, eta, focus],
    [counts, eta, focus],
    [counts, focus],
  ].map((parts) => parts.filter((part) => part !== undefined).join(' · '));
  const fitting = variants.find((line) => [...line].length <= width);
  return fitting ?? fitWidth(variants.at(-1) ?? counts, width);
}

/** Cut to `width` characters, with an ellipsis: a line wider than the terminal wraps and is not rewritten. */
function fitWidth(line: string, width: number): string {
  const characters = [...line];
  return characters.length <= width ? line : `${characters.slice(0, width - 1).join('')}…`;
}

function formatRate(perSecond: number): string {
  return perSecond >= 1 ? `${perSecond.toFixed(1)}/s` : `${(perSecond * 60).toFixed(1)}/min`;
}

/** `45s`, `2m24s`, `1h05m`. */
function formatDuration(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
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

/** `Apply complete: 3 created, 1 updated, 0 replaced, 2 deleted, 0 failed, 0 skipped in 4.2s.` */
export function formatApplySummary(result: ApplyResult): string {
  const verdict = result.interrupted
    ? 'Apply interrupted'
    : result.failed + result.skipped > 0
      ? 'Apply incomplete'
      : 'Apply complete';
  const { created, updated, replaced, deleted, alreadyAbsent, adopted, modules } = result.applied;
  // The same words as the plan's summary line, so the two can be read side by side.
  const counts = [
    `${created} created`,
    `${updated} updated`,
    `${replaced} replaced`,
    `${deleted} deleted`,
    ...(alreadyAbsent > 0 ? [`${alreadyAbsent} already absent`] : []),
    ...(adopted > 0 ? [`${adopted} adopted`] : []),
    ...(modules > 0 ? [`${modules} module(s) written`] : []),
    `${result.failed} failed`,
    `${result.skipped} skipped`,
    ...(result.notStarted > 0 ? [`${result.notStarted} interrupted`] : []),
    ...(result.unknown > 0 ? [`${result.unknown} unknown`] : []),
  ];
  return `${verdict}: ${counts.join(', ')} in ${formatSeconds(result.durationMs)}.`;
}

/**
 * One line per action that failed, was skipped or has an unknown outcome,
 * pointing at the manifest:
 * `examples/rules.yaml:4:3: create:ip_policy_rules.office: failed: invalid_field (cidr): …`.
 * Interrupted actions are a count in the summary, not a line each: after a
 * Ctrl-C, hundreds of lines saying "not started" hide the few that matter.
 */
export function formatUnappliedActions(result: ApplyResult): string[] {
  const lines = result.actions.flatMap((action) => {
    if (action.outcome === 'done' || action.outcome === 'interrupted') return [];
    const where = action.source === undefined ? '' : `${formatLocation(action.source)}: `;
    if (action.outcome === 'failed' && action.error !== undefined) {
      const { error } = action;
      const service = [
        error.status === undefined ? undefined : `HTTP ${error.status}`,
        error.serviceCode,
        error.field === undefined ? undefined : `field ${error.field}`,
      ].filter((part) => part !== undefined);
      return [
        `${where}${action.key}: failed: ${error.message}${service.length > 0 ? ` (${service.join(', ')})` : ''}`,
      ];
    }
    return [`${where}${action.key}: ${action.outcome}: ${action.reason ?? ''}`];
  });
  // Names and service messages: one line each, nothing raw for the terminal to interpret.
  return lines.map(visibleText);
}
