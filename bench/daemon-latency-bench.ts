import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningEmulator } from '../src/emulator/server.js';
import { emulatorStats, startSeededEmulator, writesIn } from './bench-emulator.js';
import { type BenchSection, figure, median, percentile, round } from './bench-figure.js';
import { CLI_PATH } from './repo-root.js';
import { buildSyntheticAccount, ruleCidr } from './synthetic-account.js';

const SECTION = 'daemon';
const OWNER = 'bench';
const RULES = 10;
const POLL_MS = 5;
/** The bench emulator enforces no limit; this budget never binds at this edit rate. */
const RATE_LIMIT = '6000/60s';

function manifestText(policyId: string, edit: number): string {
  const lines = ['version: 1', 'ip_policy_rules:'];
  for (let index = 0; index < RULES; index += 1) {
    lines.push(
      `  rule-${index}:`,
      `    ip_policy_id: ${policyId}`,
      `    cidr: ${ruleCidr(index)}`,
      '    action: deny',
      `    description: edit ${index === 0 ? edit : 0}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Polls the emulator until `check` holds; false after `limitMs`, which only keeps a stuck daemon from hanging the bench. */
async function waitFor(check: () => Promise<boolean>, limitMs: number): Promise<boolean> {
  const deadline = performance.now() + limitMs;
  while (!(await check())) {
    if (performance.now() > deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

function startWatch(emulator: RunningEmulator, dir: string, debounce: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      CLI_PATH,
      'watch',
      'manifests',
      '--api-url',
      emulator.url,
      '--owner',
      OWNER,
      '--listen',
      '127.0.0.1:0',
      '--debounce',
      debounce,
      // Each edit costs 5 requests (4 listings + 1 PATCH) and one comes every ~0.8 s, three times the
      // default 120/60s budget: with it this section timed the budget's waits, not the daemon.
      '--rate-limit',
      RATE_LIMIT,
      '--log-level',
      'warn',
    ],
    { cwd: dir, env: { ...process.env, EDGE_API_KEY: emulator.apiKey }, stdio: 'ignore' },
  );
}

export async function runDaemonLatencyBench(quick: boolean): Promise<BenchSection> {
  const edits = quick ? 5 : 50;
  const debounce = '500ms';
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-daemon-'));
  const account = await buildSyntheticAccount({
    owner: OWNER,
    seedManaged: false,
    size: { rules: 0, reservedAddrs: 0, certificateAuthorities: 0, httpsEdges: 0, tcpEdges: 0, tlsEdges: 0 },
  });
  const policyId = String(account.seed.ip_policies?.[0]?.id);
  const file = join(dir, 'manifests', 'rules.yaml');
  await mkdir(join(dir, 'manifests'));
  await writeFile(file, manifestText(policyId, 0));
  const emulator = await startSeededEmulator(account.seed);
  const daemon = startWatch(emulator, dir, debounce);
  try {
    if (!(await waitFor(async () => writesIn(await emulatorStats(emulator)) >= RULES, 60_000))) {
      throw new Error('the daemon did not apply the initial manifests within 60 s');
    }
    const latencies: number[] = [];
    let missed = 0;
    for (let edit = 1; edit <= edits; edit += 1) {
      // Let the previous reconcile finish so each edit starts from an idle daemon.
      await sleep(300);
      const before = writesIn(await emulatorStats(emulator));
      const writtenAt = performance.now();
      await writeFile(file, manifestText(policyId, edit));
      if (await waitFor(async () => writesIn(await emulatorStats(emulator)) > before, 15_000)) {
        latencies.push(performance.now() - writtenAt);
      } else {
        missed += 1;
      }
    }
    return {
      section: SECTION,
      figures: [
        figure(
          SECTION,
          `file write to first API write, median of ${edits}`,
          Math.round(median(latencies)),
          'ms',
          `--debounce ${debounce} (the default), --rate-limit ${RATE_LIMIT}; stats polled every ${POLL_MS} ms`,
        ),
        figure(SECTION, 'file write to first API write, p95', Math.round(percentile(latencies, 95)), 'ms'),
        figure(SECTION, 'edits with no API write within 15 s', missed, '', 'expected 0'),
        figure(
          SECTION,
          'median minus debounce',
          Math.round(median(latencies) - 500),
          'ms',
          'watcher + load + read live + plan + first PATCH',
        ),
      ],
      details: { latenciesMs: latencies.map((value) => round(value, 1)) },
    };
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((resolve) =>
      daemon.exitCode === null ? daemon.once('exit', resolve) : resolve(undefined),
    );
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}
