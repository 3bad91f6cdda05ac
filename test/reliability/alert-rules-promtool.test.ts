import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { UNCOUNTED_DEFAULT_GAUGES } from '../../src/watch/watch-metrics.js';
import {
  assertBuilt,
  type DaemonProcess,
  eventually,
  getStatus,
  rulesManifest,
  startDaemon,
} from '../watch/daemon-process.js';

const ROOT = join(import.meta.dirname, '..', '..');
const RULES_FILE = join(ROOT, 'deploy', 'prometheus', 'edgesync-rules.yaml');
const POLICY = 'ipp_PromtoolTestPolicy000000001';

/**
 * Prometheus's own linter, from Debian's `prometheus` package (.ci/run
 * installs it), or the binary EDGESYNC_PROMTOOL names. Missing, these tests
 * fail: this suite is where the tests that need a system tool live.
 */
function promtool(): string {
  const named = process.env.EDGESYNC_PROMTOOL;
  const found =
    named ??
    (process.env.PATH ?? '')
      .split(delimiter)
      .map((dir) => join(dir, 'promtool'))
      .find((path) => existsSync(path));
  if (found === undefined || !existsSync(found)) {
    throw new Error(
      'promtool not found: apt-get install -y prometheus (.ci/run does), set EDGESYNC_PROMTOOL',
    );
  }
  return found;
}

/** Runs promtool with `input` on its stdin. */
function runPromtool(args: readonly string[], input = ''): Promise<{ code: number | null; output: string }> {
  const child = spawn(promtool(), args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stdin.end(input);
  return new Promise((done) => child.once('close', (code) => done({ code, output })));
}

describe('deploy/prometheus/edgesync-rules.yaml', () => {
  it('passes promtool check rules', async () => {
    const result = await runPromtool(['check', 'rules', RULES_FILE]);

    expect(result.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(result.code).toBe(0);
  });
});

describe('EdgesyncDeletesHeld', () => {
  it('fires on deletes held past --settle-max for 5 minutes (promtool test rules), and not on deletes that are only held', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-promtool-rules-'));
    const tests = join(dir, 'held-deletes.test.yaml');
    // Deletes held within --settle-max all along, and one held past it from the second minute on.
    await writeFile(
      tests,
      [
        'rule_files:',
        `  - ${JSON.stringify(RULES_FILE)}`,
        'evaluation_interval: 1m',
        'tests:',
        '  - interval: 1m',
        '    input_series:',
        `      - series: 'edgesync_held_deletes{instance="a"}'`,
        "        values: '3x20'",
        `      - series: 'edgesync_held_deletes_overdue{instance="a"}'`,
        "        values: '0x20'",
        `      - series: 'edgesync_held_deletes{instance="b"}'`,
        "        values: '1x20'",
        `      - series: 'edgesync_held_deletes_overdue{instance="b"}'`,
        "        values: '0 1x19'",
        '    alert_rule_test:',
        '      - eval_time: 5m',
        '        alertname: EdgesyncDeletesHeld',
        '        exp_alerts: []',
        '      - eval_time: 7m',
        '        alertname: EdgesyncDeletesHeld',
        '        exp_alerts:',
        '          - exp_labels: { severity: warning, instance: b }',
        '            exp_annotations:',
        `              summary: "1 delete(s) held past --settle-max on b while the manifests do not read valid; see /status.settle.overdue and /status.manifest_errors"`,
        '',
      ].join('\n'),
    );
    try {
      const result = await runPromtool(['test', 'rules', tests]);

      expect(result.output).toContain('SUCCESS');
      expect(result.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a live scrape of edgesync watch', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let daemon: DaemonProcess | undefined;

  beforeAll(async () => {
    assertBuilt();
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-promtool-'));
  });
  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await emulator?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('passes promtool check metrics, with prom-client defaults named like counters left out', async () => {
    await mkdir(join(dir, 'manifests'));
    await writeFile(
      join(dir, 'manifests', 'rules.yaml'),
      rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24' } }),
    );
    daemon = await startDaemon(emulator, ['manifests', '--owner', 'promtool'], dir);
    const running = daemon;
    // After a reconcile that applied, so the histograms and per-kind series have samples.
    await eventually(async () =>
      (await getStatus(running)).last_reconcile?.result === 'applied' ? true : undefined,
    );

    const scrape = await (await fetch(`${running.url}/metrics`)).text();
    const result = await runPromtool(['check', 'metrics'], scrape);

    expect(scrape).toContain('edgesync_reconciles_total{result="applied"} 1');
    expect(scrape).toContain('nodejs_active_handles{');
    for (const name of UNCOUNTED_DEFAULT_GAUGES) expect(scrape).not.toContain(name);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });
});
