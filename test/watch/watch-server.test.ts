import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonStatus } from '../../src/watch/daemon-status.js';
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
    const body = (await response.json()) as DaemonStatus;

    expect(response.headers.get('content-type')).toContain('application/json');
    expect(body.manifestErrors[0]).toEqual({
      file: 'a.yaml',
      line: 3,
      column: 5,
      path: 'ip_policy_rules.x.cidr',
      message: 'bad',
    });
    expect(body.mode).toBe('enforce');
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
