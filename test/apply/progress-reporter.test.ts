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
    applied: { created: 3, updated: 1, replaced: 0, deleted: 2, adopted: 0, modules: 0 },
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
      { applied: { created: 4, updated: 0, replaced: 0, deleted: 0, adopted: 1, modules: 6 } },
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

describe('createProgressReporter', () => {
  it('rewrites one line on a TTY', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true });
    const output = collect(stream);
    const reporter = createProgressReporter({ stream, logger: silentLogger });
    const action = createRuleAction('a', 'ipp_1', '10.0.0.0/24');

    reporter.onProgress({ type: 'started', action, finished: 0, total: 2, rateLimitWaitMs: 0 });
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
      },
      finished: 1,
      total: 2,
      rateLimitWaitMs: 1500,
    });
    reporter.finish();

    expect(output()).toBe(
      '\r\x1b[KApplying 0/2 · create:ip_policy_rules.a' +
        '\r\x1b[KApplying 1/2 · waited 1.5s on the rate limit' +
        '\r\x1b[K',
    );
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
      key: action.key,
      outcome: 'done',
      id: 'ipr_1',
      component: 'progress',
    });
  });
});
