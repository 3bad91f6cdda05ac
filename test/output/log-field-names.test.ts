import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { executePlan } from '../../src/apply/execute-plan.js';
import { createProgressReporter } from '../../src/apply/progress-reporter.js';
import { createLogger } from '../../src/cli/logger.js';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { createIpPolicy, type Harness, startHarness } from '../apply/apply-harness.js';
import { createRuleAction, handPlan, ruleCidr } from '../apply/hand-plan.js';
import { ROOT, runEdgesyncProcess } from '../support/edgesync-cli.js';
import { startDaemon } from '../watch/daemon-process.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every key of `value` at every depth, with where it sits. */
function keysOf(value: Json, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => keysOf(item, `${at}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => [`${at}.${key}`, ...keysOf(item, `${at}.${key}`)]);
}

/** The keys that are not snake_case, with the message of their line. */
function notSnakeCase(lines: readonly Record<string, Json>[]): string[] {
  return lines.flatMap((line) =>
    keysOf(line)
      .filter((path) => !/^[a-z][a-z0-9_]*$/.test(path.split('.').at(-1) ?? ''))
      .map((path) => `${String(line.msg)}: ${path}`),
  );
}

function jsonLines(text: string): Record<string, Json>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, Json>);
}

describe('JSON logs: one casing for every field, one name for every event', () => {
  let harness: Harness | undefined;
  const emulators: RunningEmulator[] = [];
  let dir: string | undefined;

  afterEach(async () => {
    await harness?.emulator.close();
    harness = undefined;
    await Promise.all(emulators.splice(0).map((emulator) => emulator.close()));
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("an apply's action, failure, progress and error lines are snake_case at every depth", async () => {
    harness = await startHarness();
    const policyId = await createIpPolicy(harness);
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    const logger = createLogger({ format: 'json', level: 'debug', destination: stream });
    const api = createApiClient({
      baseUrl: harness.emulator.url,
      apiKey: harness.emulator.apiKey,
      budget: new RequestBudget({ requests: 100_000, windowMs: 1000 }),
      logger,
    });
    const reporter = createProgressReporter({ logger, logEveryMs: 0, tickMs: 1 });
    const broken = createRuleAction('broken', policyId, '10.0.0.0/33');
    const fine = createRuleAction('fine', policyId, ruleCidr(3));

    const result = await executePlan(handPlan([broken, fine]), {
      api,
      logger,
      onProgress: reporter.onProgress,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    reporter.finish();
    const refused = await api
      .request({ method: 'GET', path: '/ip_policy_rules/ipr_0000000000000000000000000001' })
      .catch((error: unknown) => error);
    logger.warn({ err: refused }, 'a service error as it is logged');

    expect(result.failed).toBe(1);
    const lines = jsonLines(text);
    const messages = new Set(lines.map((line) => line.msg));
    for (const message of [
      'action failed',
      'action not applied',
      'action finished',
      'progress',
      'a service error as it is logged',
    ]) {
      expect(messages).toContain(message);
    }
    expect(lines.find((line) => line.msg === 'action not applied')?.error).toMatchObject({
      service_code: 'invalid_field',
    });
    expect(lines.find((line) => line.msg === 'a service error as it is logged')?.err).toMatchObject({
      error_code: 'not_found',
    });
    expect(notSnakeCase(lines)).toEqual([]);
  });

  it('apply and the daemon log the end of an action under the same message, in snake_case', async () => {
    // One account each: both would manage the same objects under different owners.
    const seed = await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml'));
    const [forApply, forDaemon] = [await startEmulator({ seed }), await startEmulator({ seed })];
    emulators.push(forApply, forDaemon);
    dir = await mkdtemp(join(tmpdir(), 'edgesync-log-names-'));
    await cp(join(ROOT, 'examples/manifests'), join(dir, 'manifests'), { recursive: true });
    const env = { EDGE_API_URL: forApply.url, EDGE_API_KEY: forApply.apiKey, OIDC_CLIENT_SECRET: 'x' };

    const applied = await runEdgesyncProcess(
      ['apply', '--yes', '--log-format', 'json', join(dir, 'manifests')],
      { env },
    );
    const daemon = await startDaemon(forDaemon, ['--log-format', 'json', join(dir, 'manifests')], dir, {
      OIDC_CLIENT_SECRET: 'x',
    });
    let daemonLines: Record<string, Json>[] = [];
    try {
      for (let tries = 0; tries < 400; tries += 1) {
        daemonLines = jsonLines(daemon.stderr());
        if (daemonLines.some((line) => line.msg === 'reconcile finished')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await daemon.stop();
    }

    expect(applied.code).toBe(0);
    const actionMessages = (lines: Record<string, Json>[]) => [
      ...new Set(
        lines
          .filter((line) => typeof line.action === 'string' && line.outcome !== undefined)
          .map((line) => line.msg),
      ),
    ];
    expect(actionMessages(jsonLines(applied.stderr))).toEqual(['action finished']);
    expect(actionMessages(daemonLines)).toEqual(['action finished']);
    expect(notSnakeCase([...jsonLines(applied.stderr), ...daemonLines])).toEqual([]);
  });
});
