import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/api/request-budget.js';
import type { ProgressEvent } from '../../src/apply/execute-plan.js';
import { executePlan } from '../../src/apply/execute-plan.js';
import { encodeMetadata, parseMetadata } from '../../src/kinds/ownership-marker.js';
import type { Action } from '../../src/plan/plan.js';
import { createIpPolicy, emulatorStats, type Harness, listAll, startHarness } from './apply-harness.js';
import {
  createRuleAction,
  handPlan,
  OWNER,
  plainAction,
  ruleCidr,
  seededRandom,
  silentLogger,
} from './hand-plan.js';

const CA_PEM = readFileSync(new URL('../fixtures/certs/corp-root.pem', import.meta.url), 'utf8');

interface RuleItem {
  readonly id: string;
  readonly cidr: string;
  readonly metadata?: string;
}

describe('executePlan', () => {
  let harness: Harness | undefined;

  afterEach(async () => {
    await harness?.emulator.close();
    harness = undefined;
  });

  it('creates in dependency order and substitutes the IDs of earlier creates', async () => {
    harness = await startHarness();
    const createCa = plainAction(
      'create:certificate_authorities.corp',
      'certificate_authorities',
      'corp',
      'create',
      {
        method: 'POST',
        path: '/certificate_authorities',
        body: { ca_pem: CA_PEM, metadata: encodeMetadata(undefined, { owner: OWNER, name: 'corp' }) },
      },
    );
    const createEdge = plainAction(
      'create:https_edges.web',
      'https_edges',
      'web',
      'create',
      {
        method: 'POST',
        path: '/edges/https',
        body: {
          hostports: ['web.example.com:443'],
          mutual_tls: { enabled: true, certificate_authority_ids: [{ $createdBy: createCa.key }] },
          metadata: encodeMetadata(undefined, { owner: OWNER, name: 'web' }),
        },
      },
      [createCa.key],
    );

    const result = await executePlan(handPlan([createCa, createEdge]), {
      api: harness.api,
      logger: silentLogger,
    });

    expect(result.done).toBe(2);
    expect(result.applied.created).toBe(2);
    const caId = result.createdIds[createCa.key];
    expect(caId).toMatch(/^ca_/);
    const edge = await harness.inspect.request<{ mutual_tls: { certificate_authorities: { id: string }[] } }>(
      {
        method: 'GET',
        path: `/edges/https/${result.createdIds[createEdge.key]}`,
      },
    );
    expect(edge.body.mutual_tls.certificate_authorities.map((ref) => ref.id)).toEqual([caId]);
  });

  it('fails only the dependents of a failed action and reports the service error against the manifest', async () => {
    harness = await startHarness();
    const policyId = await createIpPolicy(harness);
    const broken = createRuleAction('broken', policyId, '10.0.0.0/33');
    const child = createRuleAction('child', policyId, ruleCidr(1), { dependsOn: [broken.key] });
    const grandchild = createRuleAction('grandchild', policyId, ruleCidr(2), { dependsOn: [child.key] });
    const independent = createRuleAction('independent', policyId, ruleCidr(3));

    const result = await executePlan(handPlan([broken, child, grandchild, independent]), {
      api: harness.api,
      logger: silentLogger,
    });

    expect(result.actions.map((action) => [action.key, action.outcome])).toEqual([
      [broken.key, 'failed'],
      [child.key, 'skipped'],
      [grandchild.key, 'skipped'],
      [independent.key, 'done'],
    ]);
    expect(result.actions[0]?.error).toMatchObject({
      status: 400,
      serviceCode: 'invalid_field',
      field: 'cidr',
    });
    expect(result.actions[0]?.source).toEqual({ file: 'manifests/rules.yaml', line: 3, column: 3 });
    expect(result.actions[1]?.reason).toBe(`depends on ${broken.key} which failed`);
    expect(result.actions[2]?.reason).toBe(`depends on ${broken.key} which failed`);
    expect({ done: result.done, failed: result.failed, skipped: result.skipped }).toEqual({
      done: 1,
      failed: 1,
      skipped: 2,
    });
    const rules = await listAll<RuleItem>(harness, '/ip_policy_rules', 'ip_policy_rules');
    expect(rules.map((rule) => rule.cidr)).toEqual([ruleCidr(3)]);
  });

  it('treats a delete of something already gone as done', async () => {
    harness = await startHarness();
    const policyId = await createIpPolicy(harness);
    const created = await harness.inspect.request<{ id: string }>({
      method: 'POST',
      path: '/ip_policy_rules',
      body: { cidr: ruleCidr(9), ip_policy_id: policyId, action: 'deny' },
    });
    await harness.inspect.request({ method: 'DELETE', path: `/ip_policy_rules/${created.body.id}` });
    const deleteRule = plainAction('delete:ip_policy_rules.gone', 'ip_policy_rules', 'gone', 'delete', {
      method: 'DELETE',
      path: `/ip_policy_rules/${created.body.id}`,
    });

    const result = await executePlan(handPlan([deleteRule]), { api: harness.api, logger: silentLogger });

    expect(result.actions[0]).toMatchObject({ outcome: 'done', note: 'already absent' });
    expect(result.applied).toMatchObject({ deleted: 0, alreadyAbsent: 1 });
  });

  it('refuses a plan whose dependencies name no earlier action, before any request', async () => {
    harness = await startHarness();
    const orphan = createRuleAction('orphan', 'ipp_x', ruleCidr(1), { dependsOn: ['create:nowhere'] });

    await expect(
      executePlan(handPlan([orphan]), { api: harness.api, logger: silentLogger }),
    ).rejects.toMatchObject({
      code: 'plan_invalid',
    });
    expect((await emulatorStats(harness)).total).toBe(0);
  });

  it('stays inside the request budget: 300 creates against a rate-limited emulator get no 429', async () => {
    // 301 requests through a window of 100: three windows' wait, whatever the window's length.
    const limit = { requests: 100, windowMs: 1000 };
    harness = await startHarness({ rateLimit: limit }, new RequestBudget(limit));
    // Through the budgeted client: every request the emulator counts must be one the budget counted.
    const policy = await harness.api.request<{ id: string }>({
      method: 'POST',
      path: '/ip_policies',
      body: {},
    });
    const policyId = policy.body.id;
    const actions = Array.from({ length: 300 }, (_, index) =>
      createRuleAction(`r${index}`, policyId, ruleCidr(index)),
    );

    const result = await executePlan(handPlan(actions), {
      api: harness.api,
      logger: silentLogger,
      concurrency: 8,
    });

    expect(result.done).toBe(300);
    const stats = await emulatorStats(harness);
    expect(stats.byStatus['429'] ?? 0).toBe(0);
    expect(stats.byRoute['POST /ip_policy_rules']).toBe(300);
  });

  it('creates exactly once under faults and dropped connections (300 creates, no duplicates)', async () => {
    harness = await startHarness({ faultRate: 0.1, dropRate: 0.05, random: seededRandom(2024) });
    const policyId = await harness.inspect
      .request<{ id: string }>({ method: 'POST', path: '/ip_policies', body: {} })
      .then((response) => response.body.id);
    const actions = Array.from({ length: 300 }, (_, index) =>
      createRuleAction(`r${index}`, policyId, ruleCidr(index)),
    );

    const first = await executePlan(handPlan(actions), {
      api: harness.api,
      logger: silentLogger,
      concurrency: 8,
    });
    // What the next plan would do: retry only what is not there yet, knowing every ID that now exists.
    const present = await listAll<RuleItem>(harness, '/ip_policy_rules', 'ip_policy_rules');
    const presentNames = new Set(present.map((rule) => parseMetadata(rule.metadata).marker?.name));
    const missing = actions.filter((action) => !presentNames.has(action.name));
    const second =
      missing.length === 0
        ? undefined
        : await executePlan(
            handPlan(missing, { fingerprints: Object.fromEntries(present.map((rule) => [rule.id, 'x'])) }),
            { api: harness.api, logger: silentLogger },
          );

    expect(first.done + (second?.done ?? 0)).toBe(300);
    const rules = await listAll<RuleItem>(harness, '/ip_policy_rules', 'ip_policy_rules');
    expect(rules).toHaveLength(300);
    expect(new Set(rules.map((rule) => parseMetadata(rule.metadata).marker?.name)).size).toBe(300);
    expect(first.actions.some((action) => action.note?.startsWith('found by its marker'))).toBe(true);
  });

  it('coalesces the marker lookups of outcome-unknown creates: 500 creates under faults, far fewer listings than unknowns', async () => {
    const policyId = 'ipp_OfficeVpnPolicy000000000001';
    harness = await startHarness({
      faultRate: 0.1,
      dropRate: 0.05,
      random: seededRandom(77),
      seed: { ip_policies: [{ id: policyId }] },
    });
    const actions = Array.from({ length: 500 }, (_, index) =>
      createRuleAction(`r${index}`, policyId, ruleCidr(index)),
    );
    const logLines: Array<{ msg?: string; listings?: number }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
    const listsBefore = (await emulatorStats(harness)).byRoute['GET /ip_policy_rules'] ?? 0;

    const result = await executePlan(handPlan(actions), { api: harness.api, logger, concurrency: 16 });

    const unknowns = logLines.filter((line) => line.msg?.startsWith('create outcome unknown')).length;
    const listings =
      logLines.find((line) => line.msg === 'marker lookups after unknown outcomes')?.listings ?? 0;
    const listRequests = ((await emulatorStats(harness)).byRoute['GET /ip_policy_rules'] ?? 0) - listsBefore;
    const rules = await listAll<RuleItem>(harness, '/ip_policy_rules', 'ip_policy_rules');
    expect(result.failed).toBe(0);
    expect(result.done).toBe(500);
    expect(rules).toHaveLength(500);
    expect(new Set(rules.map((rule) => parseMetadata(rule.metadata).marker?.name)).size).toBe(500);
    // Faults at this seed give dozens of unknown outcomes. A listing of its own for each would read all
    // 5 pages (500 rules) each time: at least 5 list requests per unknown outcome.
    expect(unknowns).toBeGreaterThan(30);
    expect(listings).toBeGreaterThan(0);
    expect(listings).toBeLessThan(unknowns / 2);
    expect(listRequests).toBeLessThan(unknowns * 2);
  });

  it('starts nothing new once the signal aborts and reports what was not started', async () => {
    harness = await startHarness();
    const policyId = await createIpPolicy(harness);
    const actions = Array.from({ length: 10 }, (_, index) =>
      createRuleAction(`r${index}`, policyId, ruleCidr(index)),
    );
    const controller = new AbortController();
    const onProgress = (event: ProgressEvent): void => {
      if (event.type === 'finished' && event.finished === 3) controller.abort();
    };

    const result = await executePlan(handPlan(actions), {
      api: harness.api,
      logger: silentLogger,
      concurrency: 1,
      signal: controller.signal,
      onProgress,
    });

    expect(result.interrupted).toBe(true);
    expect({ done: result.done, notStarted: result.notStarted }).toEqual({ done: 3, notStarted: 7 });
    expect(result.actions.slice(3).every((action) => action.outcome === 'interrupted')).toBe(true);
    expect(await listAll<RuleItem>(harness, '/ip_policy_rules', 'ip_policy_rules')).toHaveLength(3);
  });

  it('aborts in-flight requests once the grace period after the signal has passed, and calls what it cannot settle unknown, not failed', async () => {
    harness = await startHarness({ latencyMs: 2000 });
    const policyId = 'ipp_unused';
    const action: Action = createRuleAction('slow', policyId, ruleCidr(1));
    const controller = new AbortController();

    const result = await executePlan(handPlan([action, createRuleAction('later', policyId, ruleCidr(2))]), {
      api: harness.api,
      logger: silentLogger,
      concurrency: 1,
      graceMs: 40,
      signal: controller.signal,
      onProgress: (event) => {
        // Once the create is on the wire (it waits 2 s in the emulator).
        if (event.type === 'started') setTimeout(() => controller.abort(), 100);
      },
    });

    expect(result.actions.map((entry) => entry.outcome)).toEqual(['unknown', 'interrupted']);
    expect(result.actions[0]?.error?.code).toBe('outcome_unknown');
    expect(result.interrupted).toBe(true);
    expect({ failed: result.failed, unknown: result.unknown, notStarted: result.notStarted }).toEqual({
      failed: 0,
      unknown: 1,
      notStarted: 1,
    });
  });
});
