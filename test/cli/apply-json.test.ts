import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UI_FORMAT_VERSION } from '../../src/cli/json-ui.js';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { applyInProcess, listRules, POLICY, ROOT, rulesManifest } from '../apply/cli-process.js';
import { uiLines } from '../support/ui-lines.js';

const EXAMPLES = join(ROOT, 'examples/manifests');
const SEED = join(ROOT, 'examples/emulator-seed.yaml');

describe('apply --format json: one JSON object a line on stdout', () => {
  let emulator: RunningEmulator | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function start(): Promise<RunningEmulator> {
    emulator = await startEmulator({ seed: await loadSeedFile(SEED) });
    return emulator;
  }

  async function manifestDir(text: string): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), 'edgesync-apply-json-'));
    await writeFile(join(dir, 'rules.yaml'), text);
    return dir;
  }

  it('writes the version first, the plan, each action as it starts and finishes, and the summary with the exit code last', async () => {
    const running = await start();

    const run = await applyInProcess(running, ['--yes', '--format', 'json', EXAMPLES]);

    expect(run.code).toBe(0);
    const lines = uiLines(run.stdout);
    expect(lines[0]).toMatchObject({ type: 'version', format_version: UI_FORMAT_VERSION, command: 'apply' });
    const planned = lines.filter((line) => line.type === 'planned_change');
    expect(planned.length).toBeGreaterThan(0);
    expect(planned.every((line) => line.state === 'pending')).toBe(true);
    const summaryAt = lines.findIndex((line) => line.type === 'change_summary');
    expect(summaryAt).toBe(planned.length + 1);
    expect(lines[summaryAt]).toMatchObject({ pending: planned.length });
    const total = lines[summaryAt]?.actions as number;
    const started = lines.filter((line) => line.type === 'apply_start');
    const completed = lines.filter((line) => line.type === 'apply_complete');
    expect(started).toHaveLength(total);
    expect(completed).toHaveLength(total);
    // Each action starts before it finishes.
    for (const done of completed) {
      const key = (done.action as { key: string }).key;
      const startAt = lines.findIndex(
        (line) => line.type === 'apply_start' && (line.action as { key: string }).key === key,
      );
      expect(startAt).toBeGreaterThan(summaryAt);
      expect(lines.indexOf(done)).toBeGreaterThan(startAt);
    }
    expect(lines.at(-1)).toMatchObject({
      type: 'summary',
      outcome: 'complete',
      exit_code: 0,
      actions: { done: total, failed: 0, skipped: 0, interrupted: 0, unknown: 0 },
    });
    expect(lines.filter((line) => line.type === 'summary')).toHaveLength(1);
  });

  it('says what failed as apply_errored with the service error, and exits 1 in the summary', async () => {
    const running = await start();
    const refusing = await refusingCreates(running);
    const rules = await manifestDir(rulesManifest(2));

    const run = await applyInProcess({ ...running, url: refusing.url }, [
      '--yes',
      '--format',
      'json',
      rules,
    ]).finally(() => refusing.close());

    const lines = uiLines(run.stdout);
    expect(run.code).toBe(1);
    const errored = lines.filter((line) => line.type === 'apply_errored');
    expect(errored, run.stdout).toHaveLength(2);
    expect(errored[0]).toMatchObject({
      level: 'error',
      outcome: 'failed',
      error: { status: 400, service_code: 'invalid_field', field: 'cidr' },
    });
    expect(lines.at(-1)).toMatchObject({
      type: 'summary',
      outcome: 'incomplete',
      exit_code: 1,
      actions: { failed: 2 },
    });
    expect((lines.at(-1) as { hint?: string }).hint).toContain('run the same apply again');
    // stderr keeps the human line of each failure.
    expect(run.stderr).toMatch(
      /rules\.yaml:\d+:\d+: create:ip_policy_rules\.r0: failed: .*\(HTTP 400, invalid_field, field cidr\)/,
    );
  });

  it('reports every manifest problem as a diagnostic with its place, and nothing else but the version and the summary', async () => {
    const running = await start();
    const bad = await manifestDir(
      `version: 1\nip_policy_rules:\n  a:\n    ip_policy_id: ${POLICY}\n    cidr: 300.0.0.0/8\n    action: maybe\n`,
    );

    const run = await applyInProcess(running, ['--yes', '--format', 'json', bad]);

    const lines = uiLines(run.stdout);
    expect(run.code).toBe(1);
    expect(lines.map((line) => line.type)).toEqual(['version', 'diagnostic', 'diagnostic', 'summary']);
    for (const line of lines.slice(1, 3)) {
      expect(line.diagnostic).toMatchObject({
        severity: 'error',
        source: { file: join(bad, 'rules.yaml'), line: expect.any(Number) },
      });
    }
    expect(lines.at(-1)).toMatchObject({ outcome: 'manifests_invalid', exit_code: 1 });
    expect(await listRules(running)).toEqual([]);
  });

  it('needs --yes or --plan, since it cannot ask: a diagnostic, exit 1, nothing read', async () => {
    const running = await start();

    const run = await applyInProcess(running, ['--format', 'json', EXAMPLES]);

    const lines = uiLines(run.stdout);
    expect(run.code).toBe(1);
    expect(lines.map((line) => line.type)).toEqual(['version', 'diagnostic', 'summary']);
    expect(lines[1]?.diagnostic).toMatchObject({ code: 'invalid_option' });
    expect(lines[1]?.message).toContain('pass --yes, or --plan FILE');
    expect(lines[2]).toMatchObject({ outcome: 'invalid_option', exit_code: 1 });
    expect(run.stderr).toContain('see `edgesync apply --help`');
  });

  it('--dry-run lists each request, secrets masked, and sends none', async () => {
    const running = await start();

    const run = await applyInProcess(running, ['--dry-run', '--yes', '--format', 'json', EXAMPLES]);

    const lines = uiLines(run.stdout);
    expect(run.code).toBe(0);
    const requests = lines.filter((line) => line.type === 'planned_request');
    expect(requests.length).toBeGreaterThan(0);
    expect(run.stdout).toContain('(sensitive)');
    expect(run.stdout).not.toContain('"client_secret":"x"');
    expect(lines.at(-1)).toMatchObject({ outcome: 'dry_run', exit_code: 0 });
    expect(await listRules(running)).toEqual([]);
  });
});

/**
 * The emulator behind an HTTP hop that refuses every rule create with the
 * service's 400 for a field, as the real service does for what the
 * emulator accepts, and passes every other request on.
 */
async function refusingCreates(target: RunningEmulator): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target.url);
  const server: Server = createServer((incoming, answer) => {
    if (incoming.method === 'POST' && incoming.url?.startsWith('/ip_policy_rules')) {
      incoming.resume();
      answer.writeHead(400, { 'Content-Type': 'application/json' });
      answer.end(
        JSON.stringify({
          error_code: 'invalid_field',
          status_code: 400,
          msg: 'cidr is refused here',
          details: { operation_id: 'op_test', field: 'cidr' },
        }),
      );
      return;
    }
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    forward.on('error', () => answer.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
