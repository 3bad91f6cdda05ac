import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { formatLocation } from '../manifest/source-location.js';
import { visibleText } from '../visible-text.js';
import type { ActionResult, ApplyResult } from './apply-result.js';
import type { ProgressEvent } from './execute-plan.js';

export interface ProgressReporterOptions {
  /** Where the live line goes on a TTY (stderr: stdout is for results). */
  readonly stream: Writable & { isTTY?: boolean };
  /** Without a TTY, one line per finished action goes here. */
  readonly logger: Logger;
}

export interface ProgressReporter {
  readonly onProgress: (event: ProgressEvent) => void;
  /** Clears the live line so that what follows starts on a clean line. */
  finish(): void;
}

/**
 * On a TTY: one line rewritten in place (done/total, the action that started
 * last, time spent waiting on the rate limit). Otherwise: a log line per
 * finished action, for CI logs and log collectors.
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const log = options.logger.child({ component: 'progress' });
  if (options.stream.isTTY !== true) {
    return {
      onProgress: (event) => {
        if (event.type === 'finished') logActionResult(log, event.result, event.finished, event.total);
      },
      finish: () => {},
    };
  }
  const running = new Set<string>();
  let drawn = false;
  return {
    onProgress: (event) => {
      if (event.type === 'started') running.add(event.action.key);
      else running.delete(event.action.key);
      const current = event.type === 'started' ? event.action.key : [...running].at(-1);
      const others = current === undefined ? 0 : running.size - (running.has(current) ? 1 : 0);
      const parts = [`Applying ${event.finished}/${event.total}`];
      if (current !== undefined) parts.push(`${current}${others > 0 ? ` (+${others} running)` : ''}`);
      if (event.rateLimitWaitMs > 0)
        parts.push(`waited ${formatSeconds(event.rateLimitWaitMs)} on the rate limit`);
      options.stream.write(`\r\x1b[K${parts.join(' · ')}`);
      drawn = true;
    },
    finish: () => {
      if (drawn) options.stream.write('\r\x1b[K');
      drawn = false;
    },
  };
}

function logActionResult(log: Logger, result: ActionResult, finished: number, total: number): void {
  const fields = {
    key: result.key,
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
  const { created, updated, replaced, deleted, adopted, modules } = result.applied;
  // The same words as the plan's summary line, so the two can be read side by side.
  const counts = [
    `${created} created`,
    `${updated} updated`,
    `${replaced} replaced`,
    `${deleted} deleted`,
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
