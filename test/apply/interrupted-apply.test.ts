import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { executePlan } from '../../src/apply/execute-plan.js';
import type { Action } from '../../src/plan/plan.js';
import { type RecordedRequest, scriptedServers, sendJson } from '../api/scripted-server.js';
import {
  createRuleAction,
  handPlan,
  plainAction,
  ruleCidr,
  seededRandom,
  silentLogger,
} from './hand-plan.js';

const serve = scriptedServers();

/** What the account does with a create: apply it and never answer, hold it unapplied, or answer. */
type CreateMode = 'apply-and-hang' | 'hang-unapplied' | 'answer';

/**
 * An account whose creates hang as the test says and whose listing answers
 * (or hangs with `listHangs`): what a service under a network split looks like
 * to an apply that is being stopped.
 */
async function startAccount(mode: CreateMode, options: { readonly listHangs?: boolean } = {}) {
  const rules: Array<{ id: string; metadata: string }> = [];
  const deleted = new Set<string>();
  const server = await serve((request: RecordedRequest, response: ServerResponse) => {
    const path = request.url.split('?')[0] ?? '';
    if (request.method === 'GET' && path === '/ip_policy_rules') {
      if (options.listHangs) return;
      sendJson(response, 200, { ip_policy_rules: [...rules].reverse(), next_page_uri: null });
      return;
    }
    if (request.method === 'GET') {
      if (deleted.has(path))
        sendJson(response, 404, { error_code: 'not_found', status_code: 404, msg: 'gone' });
      else sendJson(response, 200, { id: path.split('/').at(-1) });
      return;
    }
    if (request.method === 'DELETE') {
      deleted.add(path);
      return;
    }
    if (mode === 'hang-unapplied') return;
    const body = JSON.parse(request.body) as { metadata: string };
    const rule = { id: `ipr_${rules.length + 1}`, metadata: body.metadata };
    rules.push(rule);
    if (mode === 'answer') sendJson(response, 201, rule);
  });
  const posts = (): number => server.requests.filter((request) => request.method === 'POST').length;
  return { server, rules, posts };
}

function clientFor(url: string, budget = new RequestBudget({ requests: 10_000, windowMs: 1000 })) {
  return createApiClient({
    baseUrl: url,
    apiKey: 'sk_test_interrupt',
    budget,
    retry: { baseDelayMs: 1, maxDelayMs: 2, random: seededRandom(5) },
  });
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const creates = (count: number): Action[] =>
  Array.from({ length: count }, (_, index) => createRuleAction(`r${index}`, 'ipp_1', ruleCidr(index)));

describe('an interrupted apply settles what it sent', () => {
  it('reports creates that landed while their answers hung as done, found by their marker, and the rest as interrupted', async () => {
    const account = await startAccount('apply-and-hang');
    const controller = new AbortController();
    const run = executePlan(handPlan(creates(5)), {
      api: clientFor(account.server.url),
      logger: silentLogger,
      concurrency: 3,
      // The marker lookups that find the landed creates run in the second half: room for them on a loaded machine.
      graceMs: 2000,
      signal: controller.signal,
    });

    await until(() => account.posts() === 3);
    controller.abort();
    const result = await run;

    expect(result.actions.map((action) => action.outcome)).toEqual([
      'done',
      'done',
      'done',
      'interrupted',
      'interrupted',
    ]);
    expect(result.actions[0]?.note).toBe('found by its marker after an unknown outcome');
    expect(result.applied.created).toBe(3);
    expect(Object.values(result.createdIds).sort()).toEqual(account.rules.map((rule) => rule.id).sort());
    expect(result.actions[3]?.reason).toBe('not started: the apply was interrupted first');
    expect({ failed: result.failed, unknown: result.unknown, notStarted: result.notStarted }).toEqual({
      failed: 0,
      unknown: 0,
      notStarted: 2,
    });
  });

  it('reports a create that was sent but did not land as interrupted, not failed, and does not send it again', async () => {
    const account = await startAccount('hang-unapplied');
    const controller = new AbortController();
    const run = executePlan(handPlan(creates(1)), {
      api: clientFor(account.server.url),
      logger: silentLogger,
      graceMs: 400,
      signal: controller.signal,
    });

    await until(() => account.posts() === 1);
    controller.abort();
    const result = await run;

    expect(result.actions[0]).toMatchObject({
      outcome: 'interrupted',
      reason: 'sent, but it did not land; not sent again because the apply was interrupted',
    });
    expect(account.posts()).toBe(1);
  });

  it('reports a create it could not look up within the grace period as unknown', async () => {
    const account = await startAccount('apply-and-hang', { listHangs: true });
    const controller = new AbortController();
    const run = executePlan(handPlan(creates(2)), {
      api: clientFor(account.server.url),
      logger: silentLogger,
      graceMs: 200,
      signal: controller.signal,
    });

    await until(() => account.posts() === 2);
    controller.abort();
    const result = await run;

    expect(result.actions.map((action) => action.outcome)).toEqual(['unknown', 'unknown']);
    expect(result.actions[0]?.error?.code).toBe('outcome_unknown');
    expect({ failed: result.failed, unknown: result.unknown }).toEqual({ failed: 0, unknown: 2 });
  });

  it('reports a DELETE that landed while its answer hung as done: the object is gone', async () => {
    const account = await startAccount('answer');
    const controller = new AbortController();
    const remove = plainAction('delete:ip_policy_rules.old', 'ip_policy_rules', 'old', 'delete', {
      method: 'DELETE',
      path: '/ip_policy_rules/ipr_old',
    });
    const run = executePlan(handPlan([remove]), {
      api: clientFor(account.server.url),
      logger: silentLogger,
      graceMs: 200,
      signal: controller.signal,
    });

    await until(() => account.server.requests.some((request) => request.method === 'DELETE'));
    controller.abort();
    const result = await run;

    expect(result.actions[0]).toMatchObject({ outcome: 'done', note: 'found gone after an unknown outcome' });
    expect(result.applied.deleted).toBe(1);
  });

  it('stops actions waiting for the request budget at once (not after the grace period) and calls them interrupted', async () => {
    const account = await startAccount('answer');
    const budget = new RequestBudget({ requests: 2, windowMs: 600_000 });
    const controller = new AbortController();
    const run = executePlan(handPlan(creates(4)), {
      api: clientFor(account.server.url, budget),
      logger: silentLogger,
      concurrency: 4,
      // Longer than the test's timeout: waiting it out would fail the test.
      graceMs: 600_000,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.type === 'finished' && event.finished === 2) controller.abort();
      },
    });

    const result = await run;

    expect(result.actions.map((action) => action.outcome)).toEqual([
      'done',
      'done',
      'interrupted',
      'interrupted',
    ]);
    expect(result.actions[2]?.reason).toBe('not sent: the apply was interrupted first');
    expect(account.posts()).toBe(2);
    expect(result.failed).toBe(0);
  });
});
