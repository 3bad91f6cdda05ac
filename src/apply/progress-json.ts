import type { Action } from '../plan/plan.js';
import type { ActionResult, ApplyResult } from './apply-result.js';
import type { ProgressEvent } from './execute-plan.js';
import { actionResultLine, formatApplySummary, formatFinishHint } from './progress-reporter.js';

/** One line of the machine-readable UI, before the writer adds its timestamp. */
export interface UiEvent {
  readonly type: string;
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** How an apply ended, as the UI's summary says it. */
export type ApplyEnding = 'complete' | 'incomplete' | 'interrupted';

/**
 * An action starting or finishing, as `apply --format json` writes it
 * (`apply_start`, `apply_complete`, `apply_errored`; docs/apply.md). An
 * action the interruption kept from starting gets no line: it never
 * started, and the summary counts it (a stop before 100,000 creates would
 * otherwise write 100,000 lines saying so).
 */
export function progressEventJson(event: ProgressEvent): UiEvent | undefined {
  if (event.type === 'started') {
    return {
      type: 'apply_start',
      level: 'info',
      message: `${event.action.key}: applying`,
      fields: { action: actionJson(event.action), finished: event.finished, total: event.total },
    };
  }
  const { result } = event;
  if (result.outcome === 'interrupted' && result.durationMs === undefined) return undefined;
  const done = result.outcome === 'done';
  return {
    type: done ? 'apply_complete' : 'apply_errored',
    level: done ? 'info' : result.outcome === 'failed' ? 'error' : 'warn',
    message: actionResultLine(result) ?? `${result.key}: ${result.outcome}`,
    fields: {
      action: actionJson(event.action),
      outcome: result.outcome,
      id: result.id ?? null,
      duration_ms: result.durationMs ?? null,
      ...(result.note === undefined ? {} : { note: result.note }),
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      ...(result.error === undefined ? {} : { error: errorJson(result) }),
      finished: event.finished,
      total: event.total,
    },
  };
}

/** The fields of the UI's last line after an apply ran, and what a person would read there. */
export function applySummaryJson(
  result: ApplyResult,
  runMs: number,
): { readonly message: string; readonly fields: Readonly<Record<string, unknown>> } {
  const ending: ApplyEnding = result.interrupted
    ? 'interrupted'
    : result.failed + result.skipped > 0
      ? 'incomplete'
      : 'complete';
  const { applied } = result;
  const hint = formatFinishHint(result);
  return {
    message: formatApplySummary(result, runMs),
    fields: {
      outcome: ending,
      applied: {
        created: applied.created,
        updated: applied.updated,
        replaced: applied.replaced,
        deleted: applied.deleted,
        already_absent: applied.alreadyAbsent,
        adopted: applied.adopted,
        modules_written: applied.modulesWritten,
        modules_removed: applied.modulesRemoved,
      },
      actions: {
        done: result.done,
        failed: result.failed,
        skipped: result.skipped,
        interrupted: result.notStarted,
        unknown: result.unknown,
      },
      duration_ms: Math.round(runMs),
      rate_limit_wait_ms: Math.round(result.rateLimitWaitMs),
      ...(hint === undefined ? {} : { hint }),
    },
  };
}

function actionJson(action: Action): Record<string, unknown> {
  return {
    key: action.key,
    op: action.op,
    kind: action.kind,
    name: action.name,
    change: action.change,
    source: action.source ?? null,
  };
}

function errorJson(result: ActionResult): Record<string, unknown> | undefined {
  const { error } = result;
  if (error === undefined) return undefined;
  return {
    code: error.code,
    message: error.message,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.serviceCode === undefined ? {} : { service_code: error.serviceCode }),
    ...(error.field === undefined ? {} : { field: error.field }),
  };
}
