import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  appendFile,
  mkdir,
  mkdtemp,
  open,
  readFile,
  rename,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { assertBuilt, CLI, POLICY_ID } from './reliability-harness.js';
import { renderRssChart, type SoakSample } from './rss-chart.js';

const run = promisify(execFile);

/** 2 minutes in CI; longer with EDGESYNC_SOAK_SECONDS. */
const SOAK_MS = Number(process.env.EDGESYNC_SOAK_SECONDS ?? '120') * 1000;
/** Where the RSS chart goes; EDGESYNC_SOAK_CHART=docs/reliability-rss.svg refreshes the one in the docs. */
const CHART_PATH = process.env.EDGESYNC_SOAK_CHART ?? join(tmpdir(), 'edgesync-soak-rss.svg');
/** Entries of the big directory (a million: the hostile-tree case). */
const BULK_ENTRIES = Number(process.env.EDGESYNC_SOAK_ENTRIES ?? '1000000');
/** The issue's bounds on the daemon under hostile trees. */
const RSS_LIMIT_MB = 150;
const HEALTHZ_LIMIT_MS = 100;
const SAMPLE_EVERY_MS = 250;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds a GET took to a 200 and its whole body; infinite for anything else or past 5 s. */
async function timedGet(url: string): Promise<number> {
  const before = performance.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await response.arrayBuffer();
    return response.status === 200 ? performance.now() - before : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** A plain HTTP server in a child process: the yardstick of what the machine's load alone costs. */
async function startControlServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log(this.address().port); });",
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`control server exited ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/` };
}

function rulesManifest(cidr: string): string {
  return `version: 1\nip_policy_rules:\n  soak:\n    ip_policy_id: ${POLICY_ID}\n    cidr: ${cidr}\n    action: allow\n`;
}

/** Resident set size of a process, from /proc/PID/status (VmRSS, kB), in MB. */
async function residentMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kilobytes) / 1024;
}

async function liveCidrs(emulator: RunningEmulator): Promise<string[]> {
  const response = await fetch(`${emulator.url}/ip_policy_rules?limit=100`, {
    headers: { Authorization: `Bearer ${emulator.apiKey}`, 'Service-Version': '2' },
  });
  const body = (await response.json()) as { ip_policy_rules: { cidr: string }[] };
  return body.ip_policy_rules.map((rule) => rule.cidr);
}

/**
 * A hostile change to the watched tree: makes it, and returns how to undo it.
 * Each is one of the hostile-tree cases; the ones that make the manifests invalid
 * (a FIFO, /dev/zero, a link out of the root, a file past 5 MB) hold the
 * daemon on its last valid state until they are undone.
 */
type HostileChange = (d: string) => Promise<() => Promise<void>>;

const HOSTILE_CHANGES: ReadonlyArray<readonly [string, HostileChange]> = [
  [
    'link loops',
    async (d) => {
      await symlink('.', join(d, 'loop'));
      await symlink(join('..', 'd'), join(d, 'up'));
      await symlink('..', join(d, 'sub', 'back'));
      await symlink(join('..', '..', 'd'), join(d, 'sub', 'up'));
      return async () => {
        for (const link of ['loop', 'up', join('sub', 'back'), join('sub', 'up')])
          await unlink(join(d, link));
      };
    },
  ],
  [
    'directory swaps',
    async (d) => {
      for (let swap = 0; swap < 20; swap += 1) {
        await symlink(swap % 2 === 0 ? 'revs/b' : 'revs/a', join(d, 'current.tmp'));
        await rename(join(d, 'current.tmp'), join(d, 'current'));
        await sleep(50);
      }
      return async () => {};
    },
  ],
  [
    'link to /',
    async (d) => {
      await symlink('/', join(d, 'everything'));
      return () => unlink(join(d, 'everything'));
    },
  ],
  [
    'FIFO and /dev/zero',
    async (d) => {
      await run('mkfifo', [join(d, 'pipe.yaml')]);
      await symlink('/dev/zero', join(d, 'zero.yaml'));
      await symlink('/dev/urandom', join(d, 'sub', 'random.yaml'));
      return async () => {
        for (const file of ['pipe.yaml', 'zero.yaml', join('sub', 'random.yaml')])
          await unlink(join(d, file));
      };
    },
  ],
  [
    'file growing past 5 MB',
    async (d) => {
      const file = join(d, 'grow.yaml');
      await writeFile(file, 'version: 1\n');
      const chunk = `# ${'x'.repeat(97)}\n`.repeat(2621); // 256 KiB of comment lines
      for (let size = 0; size <= 5.5 * 1024 * 1024; size += chunk.length) {
        await appendFile(file, chunk);
        await sleep(60);
      }
      return () => unlink(file);
    },
  ],
];

describe('daemon soak: hostile tree changes for EDGESYNC_SOAK_SECONDS (default 120)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let daemon: ChildProcess | undefined;
  let control: { child: ChildProcess; url: string } | undefined;

  beforeAll(async () => {
    assertBuilt();
    emulator = await startEmulator({ seed: { ip_policies: [{ id: POLICY_ID }] } });
    dir = await mkdtemp(join(tmpdir(), 'edgesync-soak-'));
  });
  afterAll(async () => {
    daemon?.kill('SIGKILL');
    control?.child.kill('SIGKILL');
    await emulator?.close();
    // rm -rf in a child: listing a million entries in this process would cost its memory, not the daemon's.
    if (dir) await run('rm', ['-rf', dir], { maxBuffer: 1024 * 1024 });
  });

  it(
    "keeps RSS under 150 MB and /healthz within 100 ms of a plain server's answer, applies every edit, and exits 0 on SIGTERM",
    async () => {
      const d = join(dir, 'd');
      await mkdir(join(d, 'sub'), { recursive: true });
      await mkdir(join(d, 'revs', 'a'), { recursive: true });
      await mkdir(join(d, 'revs', 'b'), { recursive: true });
      await writeFile(join(d, 'revs', 'a', 'empty.yaml'), 'version: 1\n');
      await writeFile(join(d, 'revs', 'b', 'empty.yaml'), 'version: 1\n');
      await symlink('revs/a', join(d, 'current'));
      await writeFile(join(d, 'rules.yaml'), rulesManifest('10.77.0.0/24'));
      await writeFile(join(d, 'sub', 'note.yaml'), 'version: 1\n');

      const logFile = await open(join(dir, 'daemon.log'), 'w');
      const child = spawn(
        process.execPath,
        [
          CLI,
          'watch',
          'd',
          '--api-url',
          emulator.url,
          '--listen',
          '127.0.0.1:0',
          '--debounce',
          '200ms',
          '--interval',
          '30s',
          '--rate-limit',
          '1000/1s',
        ],
        // Logs to a file, as a container runtime drains them: pino writes synchronously, and a pipe
        // read by this busy test process would stall the daemon and measure the test, not the daemon.
        {
          cwd: dir,
          env: { ...process.env, EDGE_API_KEY: emulator.apiKey },
          stdio: ['ignore', 'pipe', logFile.fd],
        },
      );
      daemon = child;
      const logTail = async (): Promise<string> =>
        (await readFile(join(dir, 'daemon.log'), 'utf8')).slice(-20_000);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
          if (match?.[1]) resolve(match[1]);
        });
        void exited.then(async (code) =>
          reject(new Error(`daemon exited with ${code}:\n${await logTail()}`)),
        );
      });
      const pid = child.pid ?? 0;

      // The first fetch of a process loads its HTTP client: not the daemon's time, so not a sample.
      await (await fetch(`${url}/healthz`)).arrayBuffer();
      const started = performance.now();
      const samples: SoakSample[] = [];
      let phase = 'start';
      let sampling = true;
      // A control server in a process of its own, asked at the same moment as /healthz: on a shared
      // machine both answers wait for the scheduler alike, so what /healthz takes beyond the
      // control's is the daemon's own event loop, which is what the bound is about.
      const yardstick = await startControlServer();
      control = yardstick;
      await (await fetch(yardstick.url)).arrayBuffer();
      const sampler = (async () => {
        while (sampling) {
          const before = performance.now();
          const [healthzMs, controlMs] = await Promise.all([
            timedGet(`${url}/healthz`),
            timedGet(yardstick.url),
          ]);
          samples.push({ atMs: before - started, rssMb: await residentMb(pid), healthzMs, controlMs, phase });
          await sleep(Math.max(0, SAMPLE_EVERY_MS - (performance.now() - before)));
        }
      })();

      const waitForCidr = async (cidr: string): Promise<void> => {
        const deadline = Date.now() + 90_000;
        while (!(await liveCidrs(emulator)).includes(cidr)) {
          if (Date.now() > deadline)
            throw new Error(`${cidr} never applied (phase ${phase}):\n${await logTail()}`);
          await sleep(200);
        }
      };
      await waitForCidr('10.77.0.0/24');

      // A million entries in a watched directory, created while the daemon runs, by a child process.
      // The creator runs at the lowest CPU priority: on a 2-core runner it would otherwise take a
      // core from the daemon, and the bound is on the daemon's answers, not on the test's own load.
      phase = 'million entries';
      await mkdir(join(d, 'bulk'));
      const bulk = run('nice', ['-n', '19', 'sh', '-c', `seq 1 ${BULK_ENTRIES} | xargs touch`], {
        cwd: join(d, 'bulk'),
        maxBuffer: 1024 * 1024,
      });
      let bulkDone = false;
      void bulk.then(() => {
        bulkDone = true;
      });

      let cycle = 0;
      const applied: string[] = [];
      while (performance.now() - started < SOAK_MS || !bulkDone) {
        cycle += 1;
        const [name, change] = HOSTILE_CHANGES[(cycle - 1) % HOSTILE_CHANGES.length] as readonly [
          string,
          HostileChange,
        ];
        // An edit made just before the hostile change must still be applied.
        const cidr = `10.77.${cycle % 250}.0/24`;
        await writeFile(join(d, 'rules.yaml'), rulesManifest(cidr));
        phase = bulkDone ? name : `${name} + million entries`;
        const undo = await change(d);
        await sleep(1_500);
        await undo();
        await waitForCidr(cidr);
        applied.push(cidr);
        if (cycle > 1000) break;
      }
      await bulk;

      sampling = false;
      await sampler;
      yardstick.child.kill('SIGTERM');
      child.kill('SIGTERM');
      const code = await exited;
      await logFile.close();
      const finite = samples.filter((sample) => Number.isFinite(sample.healthzMs));
      await mkdir(join(CHART_PATH, '..'), { recursive: true });
      await writeFile(
        CHART_PATH,
        renderRssChart(
          samples.map((sample) => ({
            ...sample,
            // Drawn as the bound reads it: what /healthz took beyond the control's answer.
            healthzMs: Number.isFinite(sample.healthzMs)
              ? sample.healthzMs - (Number.isFinite(sample.controlMs) ? sample.controlMs : 0)
              : 5_000,
          })),
          {
            title: `edgesync watch under hostile tree changes (${(SOAK_MS / 1000).toFixed(0)} s soak, ${BULK_ENTRIES.toLocaleString('en-US')}-entry directory)`,
            rssLimitMb: RSS_LIMIT_MB,
            healthzLimitMs: HEALTHZ_LIMIT_MS,
          },
        ),
      );
      const maxRss = Math.max(...samples.map((sample) => sample.rssMb));
      const byPhase = new Map<string, { rss: number; healthz: number }>();
      for (const sample of samples) {
        const seen = byPhase.get(sample.phase) ?? { rss: 0, healthz: 0 };
        byPhase.set(sample.phase, {
          rss: Math.max(seen.rss, sample.rssMb),
          healthz: Math.max(seen.healthz, sample.healthzMs),
        });
      }
      console.log(
        [...byPhase]
          .map(
            ([name, most]) =>
              `${name}: RSS ${most.rss.toFixed(1)} MB, /healthz ${most.healthz.toFixed(1)} ms`,
          )
          .join('\n'),
      );
      // A sample whose control itself got no answer says nothing of the daemon; `finite` still holds /healthz to 5 s.
      const beyondControl = (sample: SoakSample): number =>
        Number.isFinite(sample.controlMs) ? sample.healthzMs - sample.controlMs : 0;
      const slowest = [...samples].sort((a, b) => beyondControl(b) - beyondControl(a)).slice(0, 5);
      // Figures for the docs, not assertions on time beyond the issue's bounds.
      console.log(
        `soak: ${cycle} cycles, ${applied.length} edits applied, ${samples.length} samples, max RSS ${maxRss.toFixed(1)} MB, slowest /healthz beyond the control ${slowest.map((sample) => `${beyondControl(sample).toFixed(1)} ms (${sample.healthzMs.toFixed(1)} - ${sample.controlMs.toFixed(1)}, ${sample.phase})`).join(', ')}; chart ${CHART_PATH}`,
      );

      expect(code).toBe(0);
      expect(applied.length).toBe(cycle);
      expect(finite).toHaveLength(samples.length);
      expect(maxRss).toBeLessThan(RSS_LIMIT_MB);
      expect(slowest[0] === undefined ? 0 : beyondControl(slowest[0])).toBeLessThan(HEALTHZ_LIMIT_MS);
    },
    SOAK_MS + 600_000,
  );
});
