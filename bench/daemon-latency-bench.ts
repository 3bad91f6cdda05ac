import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppliedWrite } from '../src/emulator/emulator-options.js';
import type { EmulatorSeed } from '../src/emulator/seed.js';
import type { RunningEmulator } from '../src/emulator/server.js';
import type { DaemonStatusJson } from '../src/watch/daemon-status.js';
import { FULL_ACCOUNT, floorRequests, QUICK_ACCOUNT } from './api-cost-bench.js';
import { emulatorStats, startSeededEmulator } from './bench-emulator.js';
import { type BenchFigure, type BenchSection, figure, median, percentile, round } from './bench-figure.js';
import { CLI_PATH } from './repo-root.js';
import { measureStatusPage } from './status-page-bench.js';
import { buildSyntheticAccount, ruleCidr, rulesOnly, writeManifests } from './synthetic-account.js';

const SECTION = 'daemon';
const OWNER = 'bench';
/**
 * The service's 120 requests per 60 s, time-compressed 10x: the emulator
 * enforces it, the daemon is told it, and every duration that depends on the
 * budget (the resync interval, full-read cycles, drift correction) is
 * multiplied back by this factor when reported.
 */
const COMPRESSION = 10;
const BUDGET = { requests: 120, windowMs: 60_000 / COMPRESSION };
const RATE_LIMIT = `${BUDGET.requests}/${BUDGET.windowMs / 1000}s`;
/** The default --settle: not compressed, as it waits for files, not for the budget. */
const SETTLE = '10s';
/** The default --interval (5 m), compressed, in milliseconds. */
const INTERVAL_MS = 300_000 / COMPRESSION;
const INTERVAL = `${INTERVAL_MS / 1000}s`;
const RULES_FILE = join('manifests', 'ip-policy-rules-0.yaml');

/** Every write the emulator applied, with when (performance.now()), in order. */
class WriteLog {
  readonly writes: { readonly at: number; readonly method: string; readonly path: string }[] = [];

  readonly record = (write: AppliedWrite): void => {
    if (!write.dropped) this.writes.push({ at: performance.now(), method: write.method, path: write.path });
  };

  /** The first write after `after` (performance.now()) that `test` accepts; undefined after `limitMs`. */
  async first(
    after: number,
    limitMs: number,
    test: (write: { method: string; path: string }) => boolean = () => true,
  ): Promise<number | undefined> {
    const deadline = performance.now() + limitMs;
    for (;;) {
      const found = this.writes.find((write) => write.at >= after && test(write));
      if (found !== undefined) return found.at;
      if (performance.now() > deadline) return undefined;
      await sleep(2);
    }
  }

  since(after: number): number {
    return this.writes.filter((write) => write.at >= after).length;
  }
}

interface Daemon {
  readonly child: ChildProcess;
  readonly url: string;
}

export function startWatch(
  emulator: RunningEmulator,
  dir: string,
  extra: readonly string[],
): Promise<Daemon> {
  const child = spawn(
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
      '--log-level',
      'warn',
      ...extra,
    ],
    { cwd: dir, env: { ...process.env, EDGE_API_KEY: emulator.apiKey }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited with ${code} before listening`)));
  });
}

export async function stopWatch(daemon: Daemon | undefined): Promise<void> {
  if (daemon === undefined || daemon.child.exitCode !== null) return;
  const exited = new Promise((resolve) => daemon.child.once('exit', resolve));
  daemon.child.kill('SIGTERM');
  await exited;
}

async function status(daemon: Daemon): Promise<DaemonStatusJson> {
  return (await (await fetch(`${daemon.url}/status`)).json()) as DaemonStatusJson;
}

/** Polls the daemon's /status (which costs the service nothing) until `check` holds. */
export async function until(
  daemon: Daemon,
  check: (current: DaemonStatusJson) => boolean,
  limitMs: number,
  what: string,
): Promise<DaemonStatusJson> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    if (daemon.child.exitCode !== null)
      throw new Error(`${what}: the daemon exited with ${daemon.child.exitCode}`);
    // A busy daemon may drop one status request; the next poll asks again.
    const current = await status(daemon).catch(() => undefined);
    if (current !== undefined && check(current)) return current;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${Math.round(limitMs / 1000)} s`);
    await sleep(50);
  }
}

/** Idle: no reconcile started after the last one finished, and it left the account as the manifests say. */
function idle(current: DaemonStatusJson): boolean {
  const result = current.last_reconcile?.result;
  return result === 'applied' || result === 'in-sync';
}

function targetedAndWrites(current: DaemonStatusJson): { targeted: number; writes: number } {
  const used = current.live_cache?.requests_by_purpose ?? {};
  return { targeted: used.targeted_read ?? 0, writes: used.write ?? 0 };
}

/** The rules file with rule `index`'s description set to `text`. */
function withDescription(manifest: string, index: number, text: string): string {
  const pattern = new RegExp(`^(\\s+description: )synthetic rule ${index}$`, 'm');
  if (!pattern.test(manifest)) throw new Error(`rule-${index} not found in ${RULES_FILE}`);
  return manifest.replace(pattern, `$1${text}`);
}

/** The rules file without rule `index`'s entry. */
function withoutRule(manifest: string, index: number): string {
  const pattern = new RegExp(`^  rule-${index}:\\n(?:    .*\\n)+`, 'm');
  if (!pattern.test(manifest)) throw new Error(`rule-${index} not found in ${RULES_FILE}`);
  return manifest.replace(pattern, '');
}

/** The lifted-budget floor of the code path: 10 rules, a budget that never binds (the figure this section used to report). */
async function measureFloor(edits: number): Promise<number[]> {
  const account = await buildSyntheticAccount({
    owner: OWNER,
    seedManaged: false,
    size: rulesOnly(0),
  });
  const policyId = String(account.seed.ip_policies?.[0]?.id);
  const manifest = (edit: number): string =>
    `version: 1\nip_policy_rules:\n${Array.from(
      { length: 10 },
      (_, index) =>
        `  rule-${index}:\n    ip_policy_id: ${policyId}\n    cidr: ${ruleCidr(index)}\n    action: deny\n    description: edit ${index === 0 ? edit : 0}\n`,
    ).join('')}`;
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-daemon-floor-'));
  const log = new WriteLog();
  const emulator = await startSeededEmulator(account.seed, { onWriteApplied: log.record });
  let daemon: Daemon | undefined;
  try {
    const file = join(dir, 'manifests', 'rules.yaml');
    await mkdir(join(dir, 'manifests'));
    await writeFile(file, manifest(0));
    daemon = await startWatch(emulator, dir, ['--rate-limit', '6000/60s']);
    const started = daemon;
    await until(started, (current) => idle(current) && log.writes.length >= 10, 60_000, 'floor: startup');
    const latencies: number[] = [];
    for (let edit = 1; edit <= edits; edit += 1) {
      await sleep(300);
      const writtenAt = performance.now();
      await writeFile(file, manifest(edit));
      const at = await log.first(writtenAt, 15_000);
      if (at !== undefined) latencies.push(at - writtenAt);
    }
    return latencies;
  } finally {
    await stopWatch(daemon);
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runDaemonLatencyBench(quick: boolean): Promise<BenchSection> {
  const size = quick ? QUICK_ACCOUNT : FULL_ACCOUNT;
  const edits = 20;
  const idleWindowMs = (quick ? 10 : 30) * 60_000;
  const drifts = quick ? 1 : 2;
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-daemon-'));
  const account = await buildSyntheticAccount({ owner: OWNER, size });
  await writeManifests(account, join(dir, 'manifests'));
  const log = new WriteLog();
  const seed: EmulatorSeed = account.seed;
  const emulator = await startSeededEmulator(seed, { rateLimit: BUDGET, onWriteApplied: log.record });
  let daemon: Daemon | undefined;
  try {
    const bootAt = performance.now();
    daemon = await startWatch(emulator, dir, ['--rate-limit', RATE_LIMIT, '--interval', INTERVAL]);
    const running = daemon;
    await until(
      running,
      (current) => idle(current) && current.live_cache?.complete === true,
      900_000,
      'startup',
    );
    const startupMs = performance.now() - bootAt;

    // Idle: the background full reads alone, over 30 minutes of the service's time.
    await until(
      running,
      (current) => current.live_cache?.full_read_in_progress_since != null,
      120_000,
      'first full read',
    );
    const idleFrom = (await emulatorStats(emulator)).total;
    await sleep(idleWindowMs / COMPRESSION);
    const idleRequests = (await emulatorStats(emulator)).total - idleFrom;
    const idleShare = idleRequests / ((idleWindowMs / 60_000) * 120);
    const afterIdle = await until(
      running,
      (current) => current.live_cache?.last_full_cycle != null,
      300_000,
      'a full cycle',
    );
    const cycle = afterIdle.live_cache?.last_full_cycle;
    // A full read starts every --interval, or when the last one ends if it took longer: the cycle's
    // real period is the larger of the two. A drift waits for the next read to reach its page.
    const periodMs = Math.max(cycle?.duration_ms ?? 0, INTERVAL_MS);

    // Edits of one rule, each from an idle daemon.
    const rulesPath = join(dir, RULES_FILE);
    const original = await readFile(rulesPath, 'utf8');
    const latencies: number[] = [];
    const targetedPerEdit: number[] = [];
    const writesPerEdit: number[] = [];
    let missed = 0;
    for (let edit = 1; edit <= edits; edit += 1) {
      const before = await until(running, idle, 60_000, 'idle before an edit');
      await sleep(300);
      const used = targetedAndWrites(before);
      const writtenAt = performance.now();
      await writeFile(rulesPath, withDescription(original, 0, `edit ${edit}`));
      const at = await log.first(writtenAt, 30_000);
      if (at === undefined) {
        missed += 1;
        continue;
      }
      latencies.push(at - writtenAt);
      const after = await until(
        running,
        (current) => idle(current) && targetedAndWrites(current).writes > used.writes,
        60_000,
        'edit applied',
      );
      targetedPerEdit.push(targetedAndWrites(after).targeted - used.targeted);
      writesPerEdit.push(targetedAndWrites(after).writes - used.writes);
    }

    // A burst: 20 saves in 2 s, save k changing rules 1..k (so 20 rules in all, one PATCH each once applied).
    await until(running, idle, 60_000, 'idle before the burst');
    const burstUsed = targetedAndWrites(await status(running));
    const burstAt = performance.now();
    let burstText = withDescription(original, 0, `edit ${edits}`);
    for (let index = 1; index <= 20; index += 1) {
      burstText = withDescription(burstText, index, `burst ${index}`);
      await writeFile(rulesPath, burstText);
      await sleep(100);
    }
    const isRulePatch = (write: { method: string; path: string }): boolean =>
      write.method === 'PATCH' && write.path.startsWith('/ip_policy_rules/');
    const burstDeadline = performance.now() + 120_000;
    while (log.writes.filter((write) => write.at >= burstAt && isRulePatch(write)).length < 20) {
      if (performance.now() > burstDeadline) throw new Error('burst: 20 rules not applied within 120 s');
      await sleep(5);
    }
    const burstMs = performance.now() - burstAt;
    const burstDone = await until(running, idle, 60_000, 'idle after the burst');
    const burstTargeted = targetedAndWrites(burstDone).targeted - burstUsed.targeted;
    const burstWrites = targetedAndWrites(burstDone).writes - burstUsed.writes;

    // Edits that remove a rule: its DELETE waits until the manifests have read the same over --settle.
    const deleteEdits = quick ? 2 : 5;
    const settleMs = Number(SETTLE.replace(/s$/, '')) * 1000;
    const editToDelete: number[] = [];
    let removing = burstText;
    for (let removed = 1; removed <= deleteEdits; removed += 1) {
      await until(running, idle, 60_000, 'idle before a removal');
      await sleep(300);
      // The last rules of the first file (it holds rules 0 to 999).
      removing = withoutRule(removing, Math.min(size.rules, 1000) - removed);
      const writtenAt = performance.now();
      await writeFile(rulesPath, removing);
      const at = await log.first(
        writtenAt,
        settleMs + 30_000,
        (write) => write.method === 'DELETE' && write.path.startsWith('/ip_policy_rules/'),
      );
      if (at === undefined) throw new Error('removal: no DELETE within --settle + 30 s');
      editToDelete.push(at - writtenAt);
    }

    // Drift made behind the daemon's back, timed to its correction: changed rules, then deleted ones.
    const driftMs: number[] = [];
    const deleteMs: number[] = [];
    /** From each drift to the start of the reconcile that corrected it: when the daemon saw it. */
    const seenMs: number[] = [];
    const firstPage = (await (
      await fetch(`${emulator.url}/ip_policy_rules?limit=100`, {
        headers: { Authorization: `Bearer ${emulator.apiKey}`, 'Service-Version': '2' },
      })
    ).json()) as { ip_policy_rules: { id: string }[] };
    const behindTheBack = (method: string, id: string, body?: unknown): Promise<Response> =>
      fetch(`${emulator.url}/ip_policy_rules/${id}`, {
        method,
        headers: {
          Authorization: `Bearer ${emulator.apiKey}`,
          'Service-Version': '2',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    for (let drift = 0; drift < drifts * 2; drift += 1) {
      const deleting = drift >= drifts;
      const target = firstPage.ip_policy_rules[50 + drift]?.id;
      if (target === undefined) throw new Error('drift: no rule to change');
      // At a random point of the full-read cycle, so the drifts do not all meet the same phase of it.
      await sleep(Math.random() * periodMs);
      await until(running, idle, 60_000, 'idle before a drift');
      if (deleting) await behindTheBack('DELETE', target);
      else await behindTheBack('PATCH', target, { description: `drifted ${drift}` });
      // After the change's own write is in the log, so only the daemon's correction matches.
      const madeAt = performance.now();
      const corrected = await log.first(madeAt, periodMs * 2.5, (write) =>
        deleting
          ? write.method === 'POST' && write.path === '/ip_policy_rules'
          : write.method === 'PATCH' && write.path === `/ip_policy_rules/${target}`,
      );
      if (corrected === undefined) {
        throw new Error(
          `drift: not corrected within 2.5 periods of the full-read cycle (${round((periodMs * 2.5 * COMPRESSION) / 1000, 0)} s scaled)`,
        );
      }
      (deleting ? deleteMs : driftMs).push(corrected - madeAt);
      const correctedEpochMs = performance.timeOrigin + corrected;
      const correcting = await until(
        running,
        (current) =>
          idle(current) && Date.parse(current.last_reconcile?.finished_at ?? '') >= correctedEpochMs - 1,
        60_000,
        'the reconcile that corrected the drift',
      );
      seenMs.push(
        Date.parse(correcting.last_reconcile?.started_at ?? '') - (performance.timeOrigin + madeAt),
      );
    }
    const final = await status(running);
    await stopWatch(running);
    daemon = undefined;

    const floor = await measureFloor(quick ? 5 : 10);
    const statusPage = await measureStatusPage(quick);
    const cycleS = ((cycle?.duration_ms ?? Number.NaN) * COMPRESSION) / 1000;
    const periodS = (periodMs * COMPRESSION) / 1000;
    const slowestMs = Math.max(...driftMs, ...deleteMs);
    const slowestSeenMs = Math.max(...seenMs);
    const expectedCycleS = ((floorRequests(size) / (0.25 * 120)) * 60) as number;
    const scaled = (ms: number): number => round((ms * COMPRESSION) / 1000, 0);
    const figures: BenchFigure[] = [
      figure(
        SECTION,
        'edit → first write, median of 20',
        Math.round(median(latencies)),
        'ms',
        `${size.rules.toLocaleString('en')}-rule account, defaults (--debounce 500ms, --read-share 25%), --rate-limit ${RATE_LIMIT} enforced by the emulator; wall time, not scaled: the edit path never waits for the budget`,
      ),
      figure(
        SECTION,
        'edit → first write, p95',
        Math.round(percentile(latencies, 95)),
        'ms',
        'goal ≤ 5,000 ms',
      ),
      figure(SECTION, 'edits with no write within 30 s', missed, '', 'expected 0'),
      figure(
        SECTION,
        'requests per one-rule edit beyond its writes (max)',
        Math.max(...targetedPerEdit),
        'requests',
        `median ${median(targetedPerEdit)}; writes per edit ${median(writesPerEdit)}; goal ≤ 3`,
      ),
      figure(
        SECTION,
        'idle budget share',
        round(idleShare * 100, 1),
        '%',
        `${idleRequests} requests in ${idleWindowMs / 60_000} min of the service's time (${round(idleWindowMs / 60_000 / COMPRESSION, 1)} min compressed); goal ≤ 25%`,
      ),
      figure(
        SECTION,
        'full-read cycle',
        round(cycleS, 0),
        's',
        `${cycle?.requests ?? '?'} requests; formula requests ÷ (share × budget) = ${floorRequests(size)} ÷ 30/min = ${round(expectedCycleS, 0)} s; measured ×${COMPRESSION}; one starts every ${round(periodS, 0)} s (the larger of the read and --interval ${(INTERVAL_MS * COMPRESSION) / 1000} s)`,
      ),
      figure(
        SECTION,
        'drift behind the back → corrected, max',
        scaled(slowestMs),
        's',
        `${drifts} changed rule(s): ${driftMs.map(scaled).join(', ')} s; ${drifts} deleted rule(s): ${deleteMs.map(scaled).join(', ')} s; goal ≤ one period of the full-read cycle (${round(periodS, 0)} s)`,
      ),
      figure(
        SECTION,
        'every drift seen within one full-read period',
        slowestSeenMs <= periodMs ? 'yes' : 'no',
        '',
        `seen: the start of the reconcile that corrected it, ${seenMs.map(scaled).join(', ')} s; slowest ÷ period = ${round(slowestSeenMs / periodMs, 2)}; goal ≤ 1 (the correction adds one reconcile: slowest correction ÷ period = ${round(slowestMs / periodMs, 2)})`,
      ),
      figure(
        SECTION,
        'edit removing a rule → its DELETE, median',
        Math.round(median(editToDelete)),
        'ms',
        `median of ${editToDelete.length}, max ${Math.round(Math.max(...editToDelete))} ms; --settle ${SETTLE} (the default): a delete waits until the manifests have read the same that long, then the next reconcile sends it; wall time`,
      ),
      figure(
        SECTION,
        '20 saves in 2 s → all 20 rules applied',
        Math.round(burstMs),
        'ms',
        `from the first save; ${burstTargeted} reads by ID and ${burstWrites} writes; wall time`,
      ),
      figure(
        SECTION,
        'startup: first full read and initial apply',
        scaled(startupMs),
        's',
        `measured ×${COMPRESSION}: the full read at the whole budget, then the edges' modules`,
      ),
      figure(
        SECTION,
        'floor: edit → first write, lifted budget, 10 rules',
        Math.round(median(floor)),
        'ms',
        `median of ${floor.length}; --rate-limit 6000/60s; the code path alone (watcher + load + plan + PATCH)`,
      ),
      ...statusPage,
    ];
    return {
      section: SECTION,
      figures,
      details: {
        latenciesMs: latencies.map((value) => round(value, 1)),
        targetedPerEdit,
        writesPerEdit,
        driftMs: driftMs.map((value) => round(value, 1)),
        deleteMs: deleteMs.map((value) => round(value, 1)),
        seenMs: seenMs.map((value) => round(value, 1)),
        idleRequests,
        cycle,
        periodMs,
        floorMs: floor.map((value) => round(value, 1)),
        requestsByPurpose: final.live_cache?.requests_by_purpose,
      },
    };
  } finally {
    await stopWatch(daemon);
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}
