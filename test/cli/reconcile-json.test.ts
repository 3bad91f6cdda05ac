import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { uiLines } from '../support/ui-lines.js';
import { type DaemonHarness, useDaemonHarness } from '../watch/daemon-harness.js';
import { rulesManifest } from '../watch/daemon-process.js';

const POLICY = 'ipp_ReconcileJsonTestPolicy0001';
const TOKEN = 'reconcile-json-token-0123456789';

describe('reconcile --format json: the same machine-readable UI as apply', () => {
  let tokenFile: string;
  /** The daemon in this process, on the wall clock: the command asks it over HTTP and waits on it. */
  let daemon: DaemonHarness;
  const startDaemon = useDaemonHarness('all');

  beforeAll(async () => {
    daemon = await startDaemon({
      realTime: true,
      emulator: { seed: { ip_policies: [{ id: POLICY, description: 'reconcile json' }] } },
      reconcileToken: TOKEN,
      files: { 'manifests/rules.yaml': rulesManifest(POLICY, { office: { cidr: '203.0.113.0/24' } }) },
    });
    tokenFile = join(daemon.dir, 'token');
    await daemon.record(1, (record) => record.ready);
  });

  it('--wait: version, the request, the reconcile as it completes, and the summary with the exit code', async () => {
    const run = await runEdgesyncInProcess(
      ['reconcile', '--daemon-url', daemon.url, '--wait', '--format', 'json'],
      {
        env: { EDGESYNC_RECONCILE_TOKEN_FILE: tokenFile },
      },
    );

    expect(run.code, run.stderr).toBe(0);
    const lines = uiLines(run.stdout);
    expect(lines[0]).toMatchObject({ type: 'version', command: 'reconcile' });
    expect(lines[1]).toMatchObject({
      type: 'reconcile_requested',
      daemon: new URL(daemon.url).origin,
      state: 'started',
    });
    const complete = lines.find((line) => line.type === 'reconcile_complete');
    expect(complete).toMatchObject({ ticket: lines[1]?.ticket, level: 'info' });
    expect(Number(complete?.pages_read)).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', outcome: 'finished', exit_code: 0 });
  });

  it('a refusal is a diagnostic, and the summary says exit 1', async () => {
    const wrong = join(daemon.dir, 'wrong-token');
    await writeFile(wrong, 'another-token-0123456789abcdef\n');

    const run = await runEdgesyncInProcess(['reconcile', '--daemon-url', daemon.url, '--format', 'json'], {
      env: { EDGESYNC_RECONCILE_TOKEN_FILE: wrong },
    });

    expect(run.code).toBe(1);
    const lines = uiLines(run.stdout);
    expect(lines.map((line) => line.type)).toEqual(['version', 'diagnostic', 'summary']);
    expect(lines[1]?.diagnostic).toMatchObject({ code: 'daemon_request_failed' });
    expect(lines[2]).toMatchObject({ outcome: 'daemon_request_failed', exit_code: 1 });
    expect(run.stdout).not.toContain('another-token');
  });
});
