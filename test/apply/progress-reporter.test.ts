import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestBudget } from '../../src/api/request-budget.js';
import type { ApplyResult } from '../../src/apply/apply-result.js';
import {
  createProgressReporter,
  DROP_ORDER,
  formatApplySummary,
  formatUnappliedActions,
  MIN_RATE_WINDOW_MS,
} from '../../src/apply/progress-reporter.js';
import { TerminalRow } from '../../src/cli/terminal-row.js';
import { sleepUntilAborted } from '../api/fake-time.js';
import { ROOT } from '../support/edgesync-cli.js';
import { createRuleAction, silentLogger } from './hand-plan.js';

function result(overrides: Partial<ApplyResult>): ApplyResult {
  return {
    actions: [],
    applied: {
      created: 3,
      updated: 1,
      replaced: 0,
      deleted: 2,
      alreadyAbsent: 0,
      adopted: 0,
      modulesWritten: 0,
      modulesRemoved: 0,
    },
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
          modulesWritten: 6,
          modulesRemoved: 2,
        },
      },
      'Apply complete: 4 created, 0 updated, 0 replaced, 0 deleted, 1 adopted, 6 module(s) written, 2 module(s) removed, 0 failed, 0 skipped in 4.2s.',
    ],
  ])('%o', (overrides, expected) => {
    expect(formatApplySummary(result(overrides), 4200)).toBe(expected);
  });

  it("gives the whole run's time, not the executor's", () => {
    // 33 s reading the account, 0.2 s writing.
    expect(formatApplySummary(result({ durationMs: 200 }), 33_200)).toMatch(/ in 33\.2s\.$/);
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

/** A budget whose state the test sets: `free` slots, the next in `nextSlotInMs`, `waiting` requests; 120 a minute after. */
function fixedBudget(state: { free: number; nextSlotInMs: number; waiting: number }) {
  return {
    snapshot: () => state,
    sendableInMs: (count: number) =>
      count <= state.free ? 0 : state.nextSlotInMs + (count - state.free - 1) * 500,
  };
}

/** A terminal of `columns` on a PassThrough, its TerminalRow, and everything written to it. */
function terminal(columns: number) {
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns });
  return { row: new TerminalRow(stream), output: collect(stream) };
}

/** The rows drawn, in order. */
function rows(output: string): string[] {
  return output.split('\r\x1b[K').filter((line) => line !== '');
}

describe('createProgressReporter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rewrites one row on a terminal: done/total, rate, ETA from the budget, the running action', () => {
    const { row, output } = terminal(200);
    let now = 0;
    const reporter = createProgressReporter({
      row,
      logger: silentLogger,
      clock: () => now,
      budget: fixedBudget({ free: 0, nextSlotInMs: 500, waiting: 0 }),
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

    // 240 requests left at 120 a minute: 2 minutes. Half a second of data is no rate yet.
    expect(output()).toBe(
      '\r\x1b[KApplying 0/241 · ETA 2m00s · create:ip_policy_rules.a' +
        '\r\x1b[KApplying 1/241 · ETA 2m00s · waited 1.5s on the rate limit' +
        '\r\x1b[K',
    );
  });

  it(`shows no rate, nor an ETA from the pace, before ${MIN_RATE_WINDOW_MS / 1000} s of applying`, () => {
    const { row, output } = terminal(200);
    let now = 0;
    const reporter = createProgressReporter({ row, logger: silentLogger, clock: () => now });
    const actions = Array.from({ length: 12 }, (_, index) =>
      createRuleAction(`r${index}`, 'ipp_1', `10.0.${index}.0/24`),
    );
    const finish = (index: number, at: number): void => {
      const action = actions[index] ?? actions[0];
      if (action === undefined) throw new Error('no action');
      now = at;
      reporter.onProgress({ type: 'started', action, finished: index, total: 100, rateLimitWaitMs: 0 });
      reporter.onProgress({
        type: 'finished',
        action,
        result: doneResult(action),
        finished: index + 1,
        total: 100,
        rateLimitWaitMs: 0,
      });
    };

    // A burst: 10 actions in the first 20 ms (500/s), then the real pace.
    for (let index = 0; index < 10; index += 1) finish(index, index * 2);
    const early = rows(output()).at(-1) ?? '';
    finish(10, MIN_RATE_WINDOW_MS);
    reporter.finish();

    expect(early).toBe('Applying 10/100');
    expect(rows(output()).at(-1)).toBe('Applying 11/100 · 2.2/s · ETA 41s');
  });

  it('after the stop says how many requests are in flight, and the count of done no longer moves with what never started', () => {
    const { row, output } = terminal(200);
    const stop = new AbortController();
    const reporter = createProgressReporter({
      row,
      logger: silentLogger,
      clock: () => 0,
      signal: stop.signal,
    });
    const [a, b, c] = ['a', 'b', 'c'].map((name, index) =>
      createRuleAction(name, 'ipp_1', `10.0.${index}.0/24`),
    );
    if (a === undefined || b === undefined || c === undefined) throw new Error('no action');
    reporter.onProgress({ type: 'started', action: a, finished: 0, total: 30, rateLimitWaitMs: 0 });
    reporter.onProgress({ type: 'started', action: b, finished: 0, total: 30, rateLimitWaitMs: 0 });

    stop.abort();
    const atStop = rows(output()).at(-1);
    // 27 actions that never started are written off, one event each.
    for (let index = 0; index < 27; index += 1) {
      reporter.onProgress({
        type: 'finished',
        action: c,
        result: { ...doneResult(c), outcome: 'interrupted', reason: 'not started' },
        finished: index + 1,
        total: 30,
        rateLimitWaitMs: 0,
      });
    }
    const afterWriteOffs = rows(output()).at(-1);
    reporter.onProgress({
      type: 'finished',
      action: a,
      result: doneResult(a),
      finished: 28,
      total: 30,
      rateLimitWaitMs: 0,
    });
    const afterOne = rows(output()).at(-1);
    reporter.finish();

    expect(atStop).toBe('Stopping: 2 requests in flight · 0/30 done');
    expect(afterWriteOffs).toBe('Stopping: 2 requests in flight · 0/30 done');
    expect(afterOne).toBe('Stopping: 1 request in flight · 1/30 done');
  });

  it('off a terminal writes human lines: one per finished action, none for what never started, and the stop', () => {
    const lines: string[] = [];
    const stop = new AbortController();
    const reporter = createProgressReporter({
      logger: silentLogger,
      clock: () => 0,
      lines: (line) => lines.push(line),
      signal: stop.signal,
    });
    const [a, b, c] = ['a', 'b', 'c'].map((name, index) =>
      createRuleAction(name, 'ipp_1', `10.0.${index}.0/24`),
    );
    if (a === undefined || b === undefined || c === undefined) throw new Error('no action');

    reporter.onProgress({ type: 'started', action: a, finished: 0, total: 3, rateLimitWaitMs: 0 });
    reporter.onProgress({ type: 'started', action: b, finished: 0, total: 3, rateLimitWaitMs: 0 });
    reporter.onProgress({
      type: 'finished',
      action: a,
      result: { ...doneResult(a), id: 'ipr_1', durationMs: 120 },
      finished: 1,
      total: 3,
      rateLimitWaitMs: 0,
    });
    stop.abort();
    reporter.onProgress({
      type: 'finished',
      action: c,
      result: { ...doneResult(c), outcome: 'interrupted' },
      finished: 2,
      total: 3,
      rateLimitWaitMs: 0,
    });
    reporter.onProgress({
      type: 'finished',
      action: b,
      result: {
        ...doneResult(b),
        outcome: 'failed',
        error: { code: 'api_error', message: 'bad cidr', status: 400 },
      },
      finished: 3,
      total: 3,
      rateLimitWaitMs: 0,
    });
    reporter.finish();

    expect(lines).toEqual([
      'create:ip_policy_rules.a: done in 120ms [id=ipr_1]',
      'Stopping: 1 request in flight · 1/3 done',
      'create:ip_policy_rules.b: failed: bad cidr (HTTP 400)',
    ]);
  });

  it('says what it waits for while requests wait for the request budget', () => {
    const { row, output } = terminal(200);
    const reporter = createProgressReporter({
      row,
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

  it('counts the ETA down every second while the window is full (a real budget, 20 requests per 10 s)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const { row, output } = terminal(200);
    const budget = new RequestBudget({ requests: 20, windowMs: 10_000, sleep: sleepUntilAborted });
    const reporter = createProgressReporter({ row, logger: silentLogger, budget });
    const actions = Array.from({ length: 30 }, (_, index) =>
      createRuleAction(`r${index}`, 'ipp_1', `10.0.${index}.0/24`),
    );
    for (const [index, action] of actions.slice(0, 20).entries()) {
      reporter.onProgress({ type: 'started', action, finished: index, total: 30, rateLimitWaitMs: 0 });
      await budget.acquire();
      reporter.onProgress({
        type: 'finished',
        action,
        result: doneResult(action),
        finished: index + 1,
        total: 30,
        rateLimitWaitMs: 0,
      });
    }
    const stop = new AbortController();
    const waiting = budget.acquire(stop.signal).catch(() => undefined);
    reporter.onProgress({
      type: 'started',
      action: actions[20] ?? createRuleAction('r20', 'ipp_1', '10.0.20.0/24'),
      finished: 20,
      total: 30,
      rateLimitWaitMs: 0,
    });

    for (let second = 0; second < 5; second += 1) vi.advanceTimersByTime(1000);
    reporter.finish();
    stop.abort();
    await waiting;

    const etas = rows(output())
      .filter((line) => line.includes('waiting for the request budget'))
      .map((line) => /ETA (\d+)s/.exec(line)?.[1]);
    // 10 requests left: the window frees all 20 at 10 s.
    expect(etas).toEqual(['10', '9', '8', '7', '6', '5']);
  });

  it('logs an ETA no shorter than the wait for the next slot, and moving, without a terminal', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const logs = new PassThrough();
    const output = collect(logs);
    const budget = new RequestBudget({ requests: 120, windowMs: 60_000, sleep: sleepUntilAborted });
    const reporter = createProgressReporter({ logger: pino(logs), budget });
    const actions = Array.from({ length: 300 }, (_, index) =>
      createRuleAction(`r${index}`, 'ipp_1', `10.${index >> 8}.${index & 255}.0/24`),
    );
    for (const [index, action] of actions.slice(0, 120).entries()) {
      reporter.onProgress({ type: 'started', action, finished: index, total: 300, rateLimitWaitMs: 0 });
      await budget.acquire();
      reporter.onProgress({
        type: 'finished',
        action,
        result: doneResult(action),
        finished: index + 1,
        total: 300,
        rateLimitWaitMs: 0,
      });
    }
    const stop = new AbortController();
    const waiting = budget.acquire(stop.signal).catch(() => undefined);
    reporter.onProgress({
      type: 'started',
      action: actions[120] ?? createRuleAction('r120', 'ipp_1', '10.0.120.0/24'),
      finished: 120,
      total: 300,
      rateLimitWaitMs: 0,
    });

    vi.advanceTimersByTime(50_000);
    reporter.finish();
    stop.abort();
    await waiting;

    const progress = output()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, number | string>)
      .filter((line) => line.msg === 'progress');
    expect(progress.length).toBe(5);
    for (const line of progress) {
      expect(Number(line.etaSeconds) * 1000).toBeGreaterThanOrEqual(Number(line.waitingForBudgetMs));
    }
    // 180 left: 120 when the window rolls at 60 s, the last 60 a window later.
    expect(progress.map((line) => line.etaSeconds)).toEqual([110, 100, 90, 80, 70]);
  });

  it('drops the parts of the row in the order docs/apply.md gives, at every width', async () => {
    const docs = await readFile(join(ROOT, 'docs/apply.md'), 'utf8');
    const sentence = /dropped in this order until it\s+fits:\s+(.*?);\s+only then/s.exec(docs)?.[1] ?? '';
    // Each part as the docs show it, its figures standing for any figures.
    const documented = [...sentence.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
    const pattern = (part: string): RegExp =>
      new RegExp(part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&').replace(/\d+/g, '\\d+'));
    const situations = [
      { what: 'waiting for the budget', nextSlotInMs: 11_200, waiting: 3, running: 1 },
      { what: 'working, more actions running', nextSlotInMs: 0, waiting: 0, running: 4 },
    ];
    const linesAt = (situation: (typeof situations)[number], columns: number): string => {
      const { row, output } = terminal(columns);
      let now = 0;
      const reporter = createProgressReporter({
        row,
        logger: silentLogger,
        clock: () => now,
        budget: fixedBudget({ free: 0, nextSlotInMs: situation.nextSlotInMs, waiting: situation.waiting }),
      });
      const actions = Array.from({ length: situation.running + 1 }, (_, index) =>
        createRuleAction(`r${index}`, 'ipp_1', `10.0.${index}.0/24`),
      );
      for (const action of actions) {
        reporter.onProgress({ type: 'started', action, finished: 0, total: 300, rateLimitWaitMs: 0 });
      }
      now = 60_000;
      const [first] = actions;
      if (first === undefined) throw new Error('no action');
      reporter.onProgress({
        type: 'finished',
        action: first,
        result: doneResult(first),
        finished: 123,
        total: 300,
        rateLimitWaitMs: 30_000,
      });
      reporter.finish();
      return rows(output()).at(-1) ?? '';
    };

    const shownSomewhere = new Set<string>();
    for (const situation of situations) {
      const shown = documented.filter((part) => pattern(part).test(linesAt(situation, 200)));
      for (const part of shown) shownSomewhere.add(part);
      for (let columns = 199; columns >= 20; columns -= 1) {
        const line = linesAt(situation, columns);
        const dropped = shown.filter((part) => !pattern(part).test(line));

        expect([...line].length, `${situation.what}, ${columns} columns`).toBeLessThanOrEqual(columns - 1);
        // Whatever has been dropped at this width is the start of the documented order.
        expect(dropped, `${situation.what}, ${columns} columns: ${line}`).toEqual(
          shown.slice(0, dropped.length),
        );
      }
    }
    expect(documented).toHaveLength(DROP_ORDER.length);
    expect([...shownSomewhere].sort()).toEqual([...documented].sort());
  });

  it.each([40, 80])('never writes a line wider than a %i-column terminal', (columns) => {
    const { row, output } = terminal(columns);
    const reporter = createProgressReporter({ row, logger: silentLogger, clock: () => 0 });
    const action = createRuleAction(`a-very-long-rule-name-${'x'.repeat(80)}`, 'ipp_1', '10.0.0.0/24');

    reporter.onProgress({ type: 'started', action, finished: 0, total: 300, rateLimitWaitMs: 0 });
    reporter.finish();

    expect(Math.max(...rows(output()).map((line) => [...line].length))).toBe(columns - 1);
  });

  it('logs a progress line every logEveryMs without a terminal', async () => {
    const logs = new PassThrough();
    const output = collect(logs);
    const reporter = createProgressReporter({ logger: pino(logs), logEveryMs: 20, tickMs: 10 });
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

  it('logs one line per finished action without a terminal', () => {
    const logs = new PassThrough();
    const output = collect(logs);
    const reporter = createProgressReporter({ logger: pino(logs) });
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
