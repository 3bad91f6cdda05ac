import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RequestHistory } from '../src/watch/status-page/request-history.js';
import { emulatorStats, startSeededEmulator } from './bench-emulator.js';
import { type BenchFigure, figure, round } from './bench-figure.js';
import { startWatch, stopWatch, until } from './daemon-latency-bench.js';
import { buildSyntheticAccount, rulesOnly, writeManifests } from './synthetic-account.js';

const SECTION = 'daemon';
const OWNER = 'bench';
const RULES_FILE = join('manifests', 'ip-policy-rules-0.yaml');

/** CPU time (user + system) the process `pid` has used, milliseconds, from /proc (Linux). */
function cpuMs(pid: number, ticksPerSecond: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: utime is the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** The daemon's CPU and the service's requests over `count` GETs of `path`, one after another. */
async function measureGets(
  url: string,
  path: string,
  count: number,
  pid: number,
  ticks: number,
  requests: () => Promise<number>,
): Promise<{ cpuMsPer: number; requests: number; bytes: number }> {
  const requestsBefore = await requests();
  const cpuBefore = cpuMs(pid, ticks);
  let bytes = 0;
  for (let index = 0; index < count; index += 1) bytes = (await (await fetch(`${url}${path}`)).text()).length;
  const cpuAfter = cpuMs(pid, ticks);
  return { cpuMsPer: (cpuAfter - cpuBefore) / count, requests: (await requests()) - requestsBefore, bytes };
}

/**
 * What the status page costs: a real `edgesync watch` on a 1,000-rule
 * account, idle (--interval 1h, so no background read runs meanwhile), asked
 * for `/` (and `/status`, for comparison) one request after another. The
 * daemon's CPU comes from /proc; the service's requests from the emulator's
 * count. The history's cost per reconcile is its cost per request counted
 * (measured in this process over a million requests) times the requests of a
 * one-rule edit's reconcile (measured on the daemon).
 */
export async function measureStatusPage(quick: boolean): Promise<BenchFigure[]> {
  const renders = quick ? 100 : 500;
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const account = await buildSyntheticAccount({ owner: OWNER, size: rulesOnly(1000) });
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-status-page-'));
  await writeManifests(account, join(dir, 'manifests'));
  const emulator = await startSeededEmulator(account.seed);
  let daemon: Awaited<ReturnType<typeof startWatch>> | undefined;
  try {
    daemon = await startWatch(emulator, dir, ['--rate-limit', '6000/60s', '--interval', '1h']);
    const running = daemon;
    const pid = running.child.pid as number;
    await until(
      running,
      (current) => current.last_reconcile?.result === 'in-sync' && current.live_cache?.complete === true,
      120_000,
      'status page: startup',
    );
    // One-rule edits, for the requests a reconcile counts into the history.
    const rulesPath = join(dir, RULES_FILE);
    const original = await readFile(rulesPath, 'utf8');
    const edits = 5;
    const before = await until(running, () => true, 10_000, 'status');
    const sum = (counts: Readonly<Record<string, number>> | undefined): number =>
      Object.values(counts ?? {}).reduce((total, count) => total + count, 0);
    let writes = before.live_cache?.requests_by_purpose.write ?? 0;
    for (let edit = 1; edit <= edits; edit += 1) {
      await writeFile(rulesPath, original.replace(/synthetic rule 0$/m, `status page edit ${edit}`));
      const applied = await until(
        running,
        (current) =>
          current.last_reconcile?.result === 'applied' &&
          (current.live_cache?.requests_by_purpose.write ?? 0) > writes,
        30_000,
        'status page: edit applied',
      );
      writes = applied.live_cache?.requests_by_purpose.write ?? 0;
      await sleep(700);
    }
    const after = await until(running, () => true, 10_000, 'status');
    const requestsPerReconcile =
      (sum(after.live_cache?.requests_by_purpose) - sum(before.live_cache?.requests_by_purpose)) / edits;

    const serviceRequests = async (): Promise<number> => (await emulatorStats(emulator)).total;
    // Warm up (the first renders compile the page's code), then measure.
    await measureGets(running.url, '/', 20, pid, ticks, serviceRequests);
    const page = await measureGets(running.url, '/', renders, pid, ticks, serviceRequests);
    const json = await measureGets(running.url, '/status', renders, pid, ticks, serviceRequests);

    const history = new RequestHistory();
    const recorded = 1_000_000;
    const start = process.cpuUsage();
    for (let index = 0; index < recorded; index += 1) history.record('write', 1_700_000_000_000 + index * 7);
    const used = process.cpuUsage(start);
    const nsPerRequest = ((used.user + used.system) * 1000) / recorded;

    return [
      figure(
        SECTION,
        'status page: requests to the service per view',
        page.requests / renders,
        'requests',
        `${page.requests} requests over ${renders} views of / (emulator's count); the page is made from the daemon's memory`,
      ),
      figure(
        SECTION,
        'status page: daemon CPU per view',
        round(page.cpuMsPer, 2),
        'ms',
        `mean of ${renders} GETs of / one after another, 1,000-rule account, idle daemon (/proc utime+stime); page ${Math.round(page.bytes / 1024)} KB; /status JSON: ${round(json.cpuMsPer, 2)} ms per GET`,
      ),
      figure(
        SECTION,
        'status page: history cost per reconcile',
        round((nsPerRequest * requestsPerReconcile) / 1000, 3),
        'µs',
        `${round(nsPerRequest, 0)} ns per request counted (1,000,000 in-process) × ${round(requestsPerReconcile, 1)} requests per one-rule edit's reconcile (mean of ${edits}); memory: 60 buckets, whatever the uptime`,
      ),
    ];
  } finally {
    await stopWatch(daemon);
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}
