import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonStatus, DaemonStatusJson } from '../../src/watch/daemon-status.js';
import { WatchMetrics } from '../../src/watch/watch-metrics.js';
import { type RunningWatchServer, startWatchServer } from '../../src/watch/watch-server.js';
import { parsePrometheusText, sampleSum } from './prometheus-text.js';

const NOT_READY: DaemonStatus = {
  mode: 'enforce',
  owner: 'default',
  paths: ['manifests'],
  ready: false,
  notReadyReason: '2 manifest error(s); see /status',
  manifestsValid: false,
  manifestErrors: [{ file: 'a.yaml', line: 3, column: 5, path: 'ip_policy_rules.x.cidr', message: 'bad' }],
  desiredHash: null,
  lastReconcile: null,
  lastSuccessAt: null,
  lastError: null,
  lastPlan: null,
  lastApply: null,
};

describe('watch server', () => {
  let server: RunningWatchServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(
    status: () => DaemonStatus,
    metrics = new WatchMetrics(),
  ): Promise<RunningWatchServer> {
    server = await startWatchServer({
      listen: { host: '127.0.0.1', port: 0 },
      registry: metrics.registry,
      status,
      logger: pino({ level: 'silent' }),
    });
    return server;
  }

  it('answers /healthz always and /readyz by the status', async () => {
    let status = NOT_READY;
    const { url } = await start(() => status);

    const health = await fetch(`${url}/healthz`);
    const notReady = await fetch(`${url}/readyz`);
    const notReadyText = await notReady.text();
    status = { ...NOT_READY, ready: true, notReadyReason: null };
    const ready = await fetch(`${url}/readyz`);

    expect(health.status).toBe(200);
    expect(notReady.status).toBe(503);
    expect(notReadyText).toContain('manifest error');
    expect(ready.status).toBe(200);
  });

  it('answers /healthz 503 with the reason once the loop is stuck', async () => {
    let health = { alive: true, detail: 'idle' };
    server = await startWatchServer({
      listen: { host: '127.0.0.1', port: 0 },
      registry: new WatchMetrics().registry,
      status: () => NOT_READY,
      logger: pino({ level: 'silent' }),
      health: () => health,
    });
    const alive = await fetch(`${server.url}/healthz`);
    health = { alive: false, detail: 'stuck: reconcile running for 901 s' };
    const stuck = await fetch(`${server.url}/healthz`);

    expect(alive.status).toBe(200);
    expect(stuck.status).toBe(503);
    expect(await stuck.text()).toBe('stuck: reconcile running for 901 s\n');
  });

  it('serves /status as JSON with manifest errors and their locations', async () => {
    const { url } = await start(() => NOT_READY);

    const response = await fetch(`${url}/status`);
    const body = (await response.json()) as DaemonStatusJson;

    expect(response.headers.get('content-type')).toContain('application/json');
    expect(body.manifest_errors[0]).toEqual({
      file: 'a.yaml',
      line: 3,
      column: 5,
      path: 'ip_policy_rules.x.cidr',
      message: 'bad',
    });
    expect(body.mode).toBe('enforce');
  });

  it('writes every /status key in snake_case, the cache, git and counts by purpose and operation included', async () => {
    const full: DaemonStatus = {
      ...NOT_READY,
      lastReconcile: {
        trigger: 'change',
        result: 'applied',
        startedAt: '2026-01-01T00:00:00.000Z',
        finishedAt: '2026-01-01T00:00:01.000Z',
        durationMs: 1000,
      },
      lastError: { code: 'plan_error', message: 'm', at: '2026-01-01T00:00:00.000Z' },
      lastPlan: {
        summary: {
          create: 1,
          adopt: 0,
          update: 0,
          replace: 0,
          delete: 0,
          'put-module': 2,
          'delete-module': 0,
          unchanged: 3,
          unmanaged: 0,
        },
        changes: ['ip_policy_rules.office'],
        errors: [],
        applied: true,
      },
      lastApply: { done: 1, failed: 0, skipped: 0, notStarted: 0, interrupted: false, failures: [] },
      git: { lastAppliedCommit: 'abc', lastAppliedAt: '2026-01-01T00:00:01.000Z', checkoutCommit: 'abc' },
      liveCache: {
        complete: true,
        kindsToRead: [],
        objects: 5,
        ageMs: 10,
        readShare: 0.25,
        readShareRequestsPerMinute: 30,
        fullReadInProgressSince: null,
        lastFullCycle: {
          finishedAt: '2026-01-01T00:00:01.000Z',
          durationMs: 5,
          requests: 2,
          kindsChanged: ['ip_policy_rules'],
        },
        requestsByPurpose: { 'full-read': 2, 'targeted-read': 1, write: 1 },
        lastTargetedReads: 1,
        lastChangeToFirstWriteMs: 40,
      },
    };
    const { url } = await start(() => full);

    const body = (await (await fetch(`${url}/status`)).json()) as DaemonStatusJson;

    const keys: string[] = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value !== null && typeof value === 'object')
        for (const [key, item] of Object.entries(value)) {
          keys.push(key);
          collect(item);
        }
    };
    collect(body);
    expect(keys.filter((key) => !/^[a-z0-9]+(_[a-z0-9]+)*$/.test(key))).toEqual([]);
    expect(body.live_cache?.requests_by_purpose).toEqual({ full_read: 2, targeted_read: 1, write: 1 });
    expect(body.live_cache?.last_full_cycle?.kinds_changed).toEqual(['ip_policy_rules']);
    expect(body.git?.last_applied_commit).toBe('abc');
    expect(body.last_plan?.summary.put_module).toBe(2);
    expect(body.last_apply?.not_started).toBe(0);
    expect(body.not_ready_reason).toBe('2 manifest error(s); see /status');
  });

  it('serves its own registry as Prometheus text, with API requests from the client hook', async () => {
    const metrics = new WatchMetrics();
    metrics.recordRequest({
      method: 'GET',
      path: '/ip_policy_rules?limit=100',
      kind: 'ip_policy_rules',
      status: 200,
      errorCode: undefined,
      durationMs: 3,
      attempt: 1,
    });
    metrics.recordRequest({
      method: 'POST',
      path: '/ip_policy_rules',
      kind: 'ip_policy_rules',
      status: undefined,
      errorCode: 'connection_reset',
      durationMs: 3,
      attempt: 2,
    });
    metrics.reconciles.inc({ result: 'applied' });
    const { url } = await start(() => NOT_READY, metrics);

    const response = await fetch(`${url}/metrics`);
    const samples = parsePrometheusText(await response.text());

    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(sampleSum(samples, 'edgesync_api_requests_total', { method: 'GET', status: '200' })).toBe(1);
    expect(sampleSum(samples, 'edgesync_api_requests_total', { method: 'POST', status: 'error' })).toBe(1);
    expect(sampleSum(samples, 'edgesync_api_retries_total')).toBe(1);
    expect(sampleSum(samples, 'edgesync_reconciles_total', { result: 'applied' })).toBe(1);
    expect(sampleSum(samples, 'edgesync_reconciles_total', { result: 'failed' })).toBe(0);
    expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
  });

  it('answers 404 for unknown paths and 405 for writes', async () => {
    const { url } = await start(() => NOT_READY);

    const unknown = await fetch(`${url}/nope`);
    const post = await fetch(`${url}/healthz`, { method: 'POST' });

    expect(unknown.status).toBe(404);
    expect(post.status).toBe(405);
  });
});
