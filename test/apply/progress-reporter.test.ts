import { PassThrough } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/apply/apply-result.js';
import {
  createProgressReporter,
  formatApplySummary,
  formatUnappliedActions,
} from '../../src/apply/progress-reporter.js';
import { createRuleAction, silentLogger } from './hand-plan.js';

function result(overrides: Partial<ApplyResult>): ApplyResult {
  return {
    actions: [],
    applied: { created: 3, updated: 1, replaced: 0, deleted: 2, alreadyAbsent: 0, adopted: 0, modules: 0 },
    done: 6,
    failed: 0,
    skipped: 0,
    notStarted: 0,
    unknown: 0,
    interrupted: false,
    durationMs: 4200,
    rateLimitWaitMs: 0,
    createdIds: {},
    ...overrides,
  };
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString('utf8');
}

describe('formatApplySummary', () => {
  it.each([
    [{}, 'Apply complete: 3 created, 1 updated, 0 replaced, 2 deleted, 0 failed, 0 skipped in 4.2s.'],
    [
      { failed: 1, skipped: 2 },
      'Apply incomplete: 3 created, 1 updated, 0 replaced, 2 deleted, 1 failed, 2 skipped in 4.2s.',
    ],
    [
      { interrupted: true, notStarted: 4 },
      'Apply interrupted: 3 created, 1 updated, 0 replaced, 2 deleted, 0 failed, 0 skipped, 4 interrupted in 4.2s.',
    ],
    [
      {
        applied: {
          created: 4,
          updated: 0,
          replaced: 0,
          deleted: 0,
          alreadyAbsent: 0,
          adopted: 1,
          modules: 6,
        },
      },
      'Apply complete: 4 created, 0 updated, 0 replaced, 0 deleted, 1 adopted, 6 module(s) written, 0 failed, 0 skipped in 4.2s.',
    ],
  ])('%o', (overrides, expected) => {
    expect(formatApplySummary(result(overrides))).toBe(expected);
  });
});

describe('formatUnappliedActions', () => {
  it('points failures at the manifest with the service error', () => {
    const lines = formatUnappliedActions(
      result({
        actions: [
          {
            key: 'create:ip_policy_rules.a',
            op: 'create',
            kind: 'ip_policy_rules',
            name: 'a',
            change: 'ip_policy_rules.a',
            outcome: 'failed',
            error: {
              code: 'api_error',
              message: 'bad cidr',
              status: 400,
              serviceCode: 'invalid_field',
              field: 'cidr',
            },
            source: { file: 'm.yaml', line: 4, column: 3 },
          },
          {
            key: 'create:ip_policy_rules.b',
            op: 'create',
            kind: 'ip_policy_rules',
            name: 'b',
            change: 'ip_policy_rules.b',
            outcome: 'skipped',
            reason: 'depends on create:ip_policy_rules.a which failed',
          },
        ],
      }),
    );

    expect(lines).toEqual([
      'm.yaml:4:3: create:ip_policy_rules.a: failed: bad cidr (HTTP 400, invalid_field, field cidr)',
      'create:ip_policy_rules.b: skipped: depends on create:ip_policy_rules.a which failed',
    ]);
  });
});

function doneResult(action: ReturnType<typeof createRuleAction>) {
  return {
    key: action.key,
    op: 'create' as const,
    kind: 'ip_policy_rules' as const,
    name: action.name,
    change: action.change,
    outcome: 'done' as const,
  };
}

/** A budget whose state the test sets: `free` slots, the next in `nextSlotInMs`, `waiting` requests. */
function fixedBudget(state: { free: number; nextSlotInMs: number; waiting: number }) {
  return { requests: 120, windowMs: 60_000, snapshot: () => state };
}

describe('createProgressReporter', () => {
  it('rewrites one line on a TTY: done/total, rate, ETA from the budget, the running action', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    const output = collect(stream);
    let now = 0;
    const reporter = createProgressReporter({
      stream,
      logger: silentLogger,
      clock: () => now,
      budget: fixedBudget({ free: 0, nextSlotInMs: 0, waiting: 0 }),
    });
    const action = createRuleAction('a', 'ipp_1', '10.0.0.0/24');

    reporter.onProgress({ type: 'started', action, finished: 0, total: 241, rateLimitWaitMs: 0 });
    now = 500;
    reporter.onProgress({
      type: 'finished',
      action,
      result: doneResult(action),
      finished: 1,
      total: 241,
      rateLimitWaitMs: 1500,
    });
    reporter.finish();

    // 240 left at 120 a minute: 2 minutes, longer than the 2/s so far would take.
    expect(output()).toBe(
      '\r\x1b[KApplying 0/241 · ETA 2m01s · create:ip_policy_rules.a' +
        '\r\x1b[KApplying 1/241 · 2.0/s · ETA 2m00s · waited 1.5s on the rate limit' +
        '\r\x1b[K',
    );
  });

  it('says what it waits for while requests wait for the request budget', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    const output = collect(stream);
    const reporter = createProgressReporter({
      stream,
      logger: silentLogger,
      clock: () => 0,
      budget: fixedBudget({ free: 0, nextSlotInMs: 11_200, waiting: 3 }),
    });
    const action = createRuleAction('a', 'ipp_1', '10.0.0.0/24');

    reporter.onProgress({ type: 'started', action, finished: 0, total: 4, rateLimitWaitMs: 0 });
    reporter.finish();

    expect(output()).toContain('waiting for the request budget (next slot in 12 s)');
    expect(output()).not.toContain('create:ip_policy_rules.a');
  });

  it('keeps the counts, the ETA and the waiting message whole in 80 columns, dropping the rate first', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    const output = collect(stream);
    let now = 0;
    const reporter = createProgressReporter({
      stream,
      logger: silentLogger,
      clock: () => now,
      budget: fixedBudget({ free: 0, nextSlotInMs: 11_200, waiting: 3 }),
    });
    const action = createRuleAction('a', 'ipp_1', '10.0.0.0/24');

    reporter.onProgress({ type: 'started', action, finished: 0, total: 300, rateLimitWaitMs: 0 });
    now = 60_000;
    reporter.onProgress({
      type: 'finished',
      action,
      result: doneResult(action),
      finished: 123,
      total: 300,
      rateLimitWaitMs: 30_000,
    });

    expect(output().split('\r\x1b[K').at(-1)).toBe(
      '123/300 · ETA 1m29s · waiting for the request budget (next slot in 12 s)',
    );
  });

  it.each([40, 80])('never writes a line wider than a %i-column terminal', (columns) => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns });
    const output = collect(stream);
    const reporter = createProgressReporter({ stream, logger: silentLogger, clock: () => 0 });
    const action = createRuleAction(`a-very-long-rule-name-${'x'.repeat(80)}`, 'ipp_1', '10.0.0.0/24');

    reporter.onProgress({ type: 'started', action, finished: 0, total: 300, rateLimitWaitMs: 0 });
    reporter.finish();

    const lines = output()
      .split(/\r|\n/)
      .map((line) => line.replaceAll('\x1b[K', ''));
    expect(Math.max(...lines.map((line) => [...line].length))).toBe(columns - 1);
  });

  it('logs a progress line every logEveryMs without a TTY', async () => {
    const logs = new PassThrough();
    const output = collect(logs);
    const reporter = createProgressReporter({
      stream: new PassThrough(),
      logger: pino(logs),
      logEveryMs: 20,
    });
    const action = createRuleAction('a', 'ipp_1', '10.0.0.0/24');

    const progressLines = (): Record<string, unknown>[] =>
      output()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'progress');

    reporter.onProgress({ type: 'started', action, finished: 0, total: 3, rateLimitWaitMs: 0 });
    while (progressLines().length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    reporter.finish();

    const progress = progressLines();
    expect(progress[0]).toMatchObject({ finished: 0, total: 3, component: 'progress' });
  });

  it('logs one line per finished action without a TTY', () => {
    const logs = new PassThrough();
    const output = collect(logs);
    const reporter = createProgressReporter({ stream: new PassThrough(), logger: pino(logs) });
    const action = createRuleAction('a', 'ipp_1', '10.0.0.0/24');

    reporter.onProgress({ type: 'started', action, finished: 0, total: 1, rateLimitWaitMs: 0 });
    reporter.onProgress({
      type: 'finished',
      action,
      result: {
        key: action.key,
        op: 'create',
        kind: 'ip_policy_rules',
        name: 'a',
        change: action.change,
        outcome: 'done',
        id: 'ipr_1',
      },
      finished: 1,
      total: 1,
      rateLimitWaitMs: 0,
    });

    const lines = output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'action finished',
      action: action.key,
      outcome: 'done',
      id: 'ipr_1',
      component: 'progress',
    });
  });
});
