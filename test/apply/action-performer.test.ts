import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { ActionPerformer, type ActionPerformerOptions } from '../../src/apply/action-performer.js';
import { ActionInterruptedError } from '../../src/apply/interruption-outcomes.js';
import { MarkerLookup } from '../../src/apply/marker-lookup.js';
import { encodeMetadata } from '../../src/kinds/ownership-marker.js';
import type { Action } from '../../src/plan/plan.js';
import {
  dropConnection,
  type RecordedRequest,
  scriptedServers,
  sendJson,
  sendServiceError,
} from '../api/scripted-server.js';
import { connectEmulator } from '../kinds/emulator-connection.js';
import { createRuleAction, plainAction, seededRandom, silentLogger } from './hand-plan.js';

/** How the account answers the nth write (the last entry repeats). */
type WriteFault = 'none' | 'apply-then-drop' | 'refuse-500';

const serve = scriptedServers();

/**
 * A tiny account on a real socket: IP policy rules (create, list newest
 * first, delete answers 404) and one TCP edge module, each write answering as
 * the script says, so every unknown outcome of the performer is reproducible.
 */
async function startAccount(writeFaults: readonly WriteFault[]) {
  const rules: Array<{ id: string; metadata: string }> = [];
  let module: unknown;
  let writes = 0;
  const server = await serve((request: RecordedRequest, response: ServerResponse) => {
    const path = request.url.split('?')[0];
    if (request.method === 'GET' && path === '/ip_policy_rules') {
      sendJson(response, 200, { ip_policy_rules: [...rules].reverse(), next_page_uri: null });
      return;
    }
    if (request.method === 'GET' && path === '/tcp_edges/edgtcp_1/ip_restriction') {
      sendJson(response, 200, module ?? {});
      return;
    }
    if (request.method === 'DELETE') {
      sendServiceError(response, 404, 'not_found', 'no such rule');
      return;
    }
    const fault = writeFaults[Math.min(writes, writeFaults.length - 1)] ?? 'none';
    writes += 1;
    if (fault === 'refuse-500') {
      sendServiceError(response, 500, 'internal_error', 'injected');
      return;
    }
    const body = JSON.parse(request.body) as { metadata?: string };
    let answer: unknown = body;
    if (request.method === 'POST') {
      const rule = { id: `ipr_${rules.length + 1}`, metadata: body.metadata ?? '' };
      rules.push(rule);
      answer = rule;
    } else {
      module = body;
    }
    if (fault === 'apply-then-drop') dropConnection(response);
    else sendJson(response, 200, answer);
  });
  const api = createApiClient({
    baseUrl: server.url,
    apiKey: 'sk_test_performer',
    budget: new RequestBudget({ requests: 10_000, windowMs: 1000 }),
    retry: { baseDelayMs: 1, maxDelayMs: 2, random: seededRandom(3) },
  });
  const count = (method: string, path: string): number =>
    server.requests.filter((request) => request.method === method && request.url.split('?')[0] === path)
      .length;
  return { api, rules, count, module: () => module };
}

function performerFor(
  account: Awaited<ReturnType<typeof startAccount>>,
  options: Partial<ActionPerformerOptions> = {},
): ActionPerformer {
  return new ActionPerformer({
    api: account.api,
    markerLookup: new MarkerLookup({ api: account.api, preexistingIds: new Set() }),
    logger: silentLogger,
    ...options,
  });
}

const putModule: Action = plainAction('put:tcp_edges.ssh.ip_restriction', 'tcp_edges', 'ssh', 'put-module', {
  method: 'PUT',
  path: '/tcp_edges/edgtcp_1/ip_restriction',
  body: { ip_policy_ids: ['ipp_1'] },
});

describe('ActionPerformer', () => {
  it('sends a create and keeps the ID it returned', async () => {
    const account = await startAccount(['none']);
    const performer = performerFor(account);
    const create = createRuleAction('office', 'ipp_1', '10.0.0.0/24');

    const done = await performer.perform(create);

    expect(done).toEqual({ id: 'ipr_1' });
    expect(performer.createdIds.get(create.key)).toBe('ipr_1');
  });

  it('settles a create whose answer was lost by its marker and does not send it again', async () => {
    const account = await startAccount(['apply-then-drop', 'none']);
    const performer = performerFor(account);

    const done = await performer.perform(createRuleAction('office', 'ipp_1', '10.0.0.0/24'));

    expect(done).toEqual({ id: 'ipr_1', note: 'found by its marker after an unknown outcome' });
    expect(account.count('POST', '/ip_policy_rules')).toBe(1);
    expect(account.rules).toHaveLength(1);
  });

  it('sends a create again only after the lookup proves it did not land', async () => {
    const account = await startAccount(['refuse-500', 'none']);
    const performer = performerFor(account);

    const done = await performer.perform(createRuleAction('office', 'ipp_1', '10.0.0.0/24'));

    expect(done).toEqual({ id: 'ipr_1' });
    expect(account.count('POST', '/ip_policy_rules')).toBe(2);
    expect(account.count('GET', '/ip_policy_rules')).toBe(1);
  });

  it('gives up after maxAttempts sends that all met an unknown outcome, with outcome_unknown', async () => {
    const account = await startAccount(['refuse-500']);
    const performer = performerFor(account, { maxAttempts: 3 });

    const failure = performer.perform(createRuleAction('office', 'ipp_1', '10.0.0.0/24'));

    await expect(failure).rejects.toMatchObject({ code: 'outcome_unknown' });
    expect(account.count('POST', '/ip_policy_rules')).toBe(3);
    expect(account.count('GET', '/ip_policy_rules')).toBe(3);
  });

  it('once stopping, settles an unknown outcome but never sends again: not landed is interrupted', async () => {
    const account = await startAccount(['refuse-500', 'none']);
    const performer = performerFor(account, { stopping: () => true });

    const failure = performer.perform(createRuleAction('office', 'ipp_1', '10.0.0.0/24'));

    await expect(failure).rejects.toBeInstanceOf(ActionInterruptedError);
    expect(account.count('POST', '/ip_policy_rules')).toBe(1);
    expect(account.count('GET', '/ip_policy_rules')).toBe(1);
  });

  it('once stopping, reports a create that landed as done, found by its marker', async () => {
    const account = await startAccount(['apply-then-drop', 'none']);
    const performer = performerFor(account, { stopping: () => true });

    const done = await performer.perform(createRuleAction('office', 'ipp_1', '10.0.0.0/24'));

    expect(done).toEqual({ id: 'ipr_1', note: 'found by its marker after an unknown outcome' });
  });

  it('reports a write stopped before it was sent as interrupted, and sends nothing', async () => {
    const account = await startAccount(['none']);
    const performer = performerFor(account, { stopBeforeSending: AbortSignal.abort() });

    const failure = performer.perform(createRuleAction('office', 'ipp_1', '10.0.0.0/24'));

    await expect(failure).rejects.toMatchObject({
      code: 'interrupted',
      message: 'not sent: the apply was interrupted first',
    });
    expect(account.count('POST', '/ip_policy_rules')).toBe(0);
  });

  it('settles a module write by reading the module back: landed when it holds what was sent', async () => {
    const account = await startAccount(['none']);
    const performer = performerFor(account);
    const before = await performer.settle(putModule, putModule.request);

    await account.api.request(putModule.request);
    const after = await performer.settle(putModule, putModule.request);

    expect(before).toBeUndefined();
    expect(after).toEqual({ note: 'read back after an unknown outcome' });
    expect(account.count('GET', '/tcp_edges/edgtcp_1/ip_restriction')).toBe(2);
  });

  it('counts a DELETE answered 404 as done: already absent', async () => {
    const account = await startAccount(['none']);
    const performer = performerFor(account);
    const remove = plainAction('delete:ip_policy_rules.old', 'ip_policy_rules', 'old', 'delete', {
      method: 'DELETE',
      path: '/ip_policy_rules/ipr_9',
    });

    expect(await performer.perform(remove)).toEqual({ note: 'already absent' });
  });

  it('fills the IDs of earlier creates into later requests', async () => {
    const account = await startAccount(['none']);
    const performer = performerFor(account);
    const create = createRuleAction('office', 'ipp_1', '10.0.0.0/24');
    const update = plainAction('update:ip_policy_rules.office', 'ip_policy_rules', 'office', 'update', {
      method: 'PATCH',
      path: '/ip_policy_rules/{create:ip_policy_rules.office}',
      body: { description: 'x', metadata: encodeMetadata(undefined, { owner: 'o', name: 'office' }) },
    });

    await performer.perform(create);
    await performer.perform(update);

    expect(account.count('PATCH', '/ip_policy_rules/ipr_1')).toBe(1);
  });
});

describe('ActionPerformer against each variant of an unset module', () => {
  it.each(['not-found', 'null-ok'] as const)(
    'unset-module=%s: a module DELETE whose outcome was unknown settles as landed once the module reads unset',
    async (variant) => {
      const tcp = 'edgtcp_PerformerVariant00000000001';
      const conn = await connectEmulator({
        variants: { 'unset-module': variant },
        seed: { tcp_edges: [{ id: tcp }] },
      });
      try {
        const performer = new ActionPerformer({
          api: conn.api,
          markerLookup: new MarkerLookup({ api: conn.api, preexistingIds: new Set() }),
          logger: silentLogger,
        });
        const remove = plainAction(
          'delete-module:tcp_edges.ssh.ip_restriction',
          'tcp_edges',
          'ssh',
          'delete-module',
          {
            method: 'DELETE',
            path: `/edges/tcp/${tcp}/ip_restriction`,
          },
        );

        const settled = await performer.settle(remove, remove.request);

        expect(settled).toEqual({ note: 'found gone after an unknown outcome' });
      } finally {
        await conn.close();
      }
    },
  );
});
