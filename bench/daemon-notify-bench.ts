import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emulatorStats, startSeededEmulator } from './bench-emulator.js';
import { type BenchSection, figure, round } from './bench-figure.js';
import { startWatch, stopWatch, until } from './daemon-latency-bench.js';
import { buildSyntheticAccount, rulesOnly, writeManifests } from './synthetic-account.js';

const SECTION = 'daemon';
const OWNER = 'bench';
/** The service's budget shape, time-compressed 10x, as the daemon section's other figures. */
const BUDGET = { requests: 120, windowMs: 6000 };
const RULES_FILE = join('manifests', 'ip-policy-rules-0.yaml');

/** What one daemon spent over the same edits. */
interface NotifyPoint {
  readonly reconciles: number;
  readonly cpuMs: number;
  readonly serviceRequests: number;
  readonly posts: number;
}

/** User + system CPU of a process so far, milliseconds (/proc/PID/stat, Linux). */
async function cpuMsOf(pid: number, tick: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / tick;
}

function clockTick(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

async function reconcileCount(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(/^edgesync_reconciles_total\{[^}]*\} (\d+)/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

/**
 * The same edits (manifests made invalid, then valid again with one rule
 * changed: each a notification when `--notify` is on) against a daemon
 * without and with a webhook receiver: what notifications cost the service
 * (requests) and the daemon (CPU per reconcile).
 */
async function measure(notify: boolean, rules: number, edits: number, tick: number): Promise<NotifyPoint> {
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-notify-'));
  const account = await buildSyntheticAccount({ owner: OWNER, size: rulesOnly(rules) });
  await writeManifests(account, join(dir, 'manifests'));
  const emulator = await startSeededEmulator(account.seed, { rateLimit: BUDGET });
  let posts = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/bench-token`;
  // No background read in the measured time: the edits alone.
  const extra = [
    '--rate-limit',
    `${BUDGET.requests}/${BUDGET.windowMs / 1000}s`,
    '--interval',
    '1h',
    '--settle',
    '0s',
  ];
  const daemon = await startWatch(emulator, dir, notify ? [...extra, '--notify', hook] : extra);
  try {
    const pid = daemon.child.pid ?? 0;
    const idle = (result: string | undefined) => result === 'applied' || result === 'in-sync';
    await until(
      daemon,
      (s) => idle(s.last_reconcile?.result) && s.live_cache?.complete === true,
      600_000,
      'startup',
    );
    const rulesPath = join(dir, RULES_FILE);
    const original = await readFile(rulesPath, 'utf8');
    const cpuFrom = await cpuMsOf(pid, tick);
    const reconcilesFrom = await reconcileCount(daemon.url);
    const requestsFrom = (await emulatorStats(emulator)).total;
    for (let edit = 1; edit <= edits; edit += 1) {
      await writeFile(rulesPath, `${original}  broken: 1\n`);
      await until(daemon, (s) => s.last_reconcile?.result === 'invalid', 60_000, 'invalid');
      await writeFile(
        rulesPath,
        original.replace(/^(\s+description: )synthetic rule 0$/m, `$1notify bench ${edit}`),
      );
      await until(
        daemon,
        (s) => s.manifests_valid === true && idle(s.last_reconcile?.result),
        60_000,
        'valid again',
      );
    }
    return {
      reconciles: (await reconcileCount(daemon.url)) - reconcilesFrom,
      cpuMs: (await cpuMsOf(pid, tick)) - cpuFrom,
      serviceRequests: (await emulatorStats(emulator)).total - requestsFrom,
      posts,
    };
  } finally {
    await stopWatch(daemon);
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runDaemonNotifyBench(quick: boolean): Promise<BenchSection> {
  const rules = quick ? 500 : 5000;
  const edits = quick ? 5 : 20;
  const tick = clockTick();
  const off = await measure(false, rules, edits, tick);
  const on = await measure(true, rules, edits, tick);
  const perReconcile = (point: NotifyPoint): number => point.cpuMs / Math.max(1, point.reconciles);
  const note = `${rules} rules, ${edits} edits (invalid, then valid with one rule changed)`;
  return {
    section: SECTION,
    figures: [
      figure(
        SECTION,
        'notifications: requests to the service',
        on.serviceRequests - off.serviceRequests,
        'requests',
        `with --notify minus without, same edits (${on.serviceRequests} vs ${off.serviceRequests})`,
      ),
      figure(SECTION, 'notifications: posts to the receiver', on.posts, '', note),
      figure(SECTION, 'CPU per reconcile, notifications off', round(perReconcile(off)), 'ms', note),
      figure(SECTION, 'CPU per reconcile, notifications on', round(perReconcile(on)), 'ms', note),
    ],
    details: { off, on, rules, edits },
  };
}
