import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import type { Kind } from '../../src/kinds/kind.js';
import { KINDS } from '../../src/kinds/registry.js';
import type { LoadOptions } from '../../src/manifest/load-desired-state.js';
import { compileManifestSchema } from '../../src/manifest/manifest-schema.js';
import type { PlanOptions } from '../../src/plan/planner-options.js';
import { type DaemonClock, systemClock } from '../../src/watch/daemon-clock.js';
import type { DaemonStatusJson, WatchMode } from '../../src/watch/daemon-status.js';
import type { ReconcileRecord } from '../../src/watch/reconcile/reconcile-record.js';
import type { StopOutcome } from '../../src/watch/reconcile-loop.js';
import { type DaemonNotifyOptions, runDaemon } from '../../src/watch/run-daemon.js';
import { WatchMetrics } from '../../src/watch/watch-metrics.js';
import { FakeClock } from './fake-clock.js';
import { parsePrometheusText } from './prometheus-text.js';

/** How long a harness waits for what a test expects before it says so; a bound, never asserted. */
const WAIT_LIMIT_MS = 20_000;

export interface DaemonHarnessOptions {
  /** The emulator the daemon's account lives in: its seed, latency, faults. */
  readonly emulator?: EmulatorOptions;
  /**
   * What the daemon talks to instead of the emulator itself (a hop in front
   * of it); closed with the harness.
   */
  readonly service?: (
    emulator: RunningEmulator,
  ) => Promise<{ readonly service: RunningEmulator; close(): Promise<void> }>;
  /** Files written under the daemon's directory before it starts, by relative path. */
  readonly files?: Readonly<Record<string, string>>;
  /** Whatever else the tree needs before the daemon starts (a volume, a checkout, symlinks), in the harness's directory. */
  readonly prepare?: (dir: string) => Promise<void>;
  /** What the daemon watches, as given on the command line (relative to `cwd`). @default the absolute path of `manifests/` */
  readonly paths?: readonly string[];
  /** The daemon's working directory, relative to the harness's directory. @default the harness's directory */
  readonly cwd?: string;
  /** @default 'default' */
  readonly owner?: string;
  /** @default 'enforce' */
  readonly mode?: WatchMode;
  readonly plan?: Partial<Omit<PlanOptions, 'kinds' | 'owner'>>;
  /** The manifests' environment (`{ env: NAME }` secrets). @default {} */
  readonly env?: Readonly<Record<string, string>>;
  /** --settle, milliseconds. @default the daemon's default */
  readonly settleMs?: number;
  /** --settle-max, milliseconds. @default the daemon's default (6 × --settle) */
  readonly settleMaxMs?: number;
  /** --interval, milliseconds. @default one hour: resyncs happen when the test advances the clock */
  readonly intervalMs?: number;
  /** --debounce, milliseconds. @default 200 */
  readonly debounceMs?: number;
  /** --reconcile-token-file's token: written to `token` in the harness's directory. */
  readonly reconcileToken?: string;
  /** --suspend-token-file's token: written to `suspend-token` in the harness's directory. */
  readonly suspendToken?: string;
  /** --status-token-file's token: written to `status-token`; `status()` sends it. */
  readonly statusToken?: string;
  /** --suspended: the daemon starts suspended. @default false */
  readonly suspended?: boolean;
  readonly notify?: DaemonNotifyOptions;
  /** The registry of kinds the daemon gets. @default the built-in one */
  readonly kinds?: readonly Kind[];
  /** The client's timeout of one request, milliseconds. @default 5000 */
  readonly requestTimeoutMs?: number;
  /**
   * The wall clock instead of the test's: for a test whose other side (a
   * command run as a process) waits on the daemon in real time. @default false
   */
  readonly realTime?: boolean;
}

/** A log line the daemon wrote, parsed. */
export type LogLine = Readonly<Record<string, unknown>> & { readonly msg?: string };

/**
 * `edgesync watch` in this process: `runDaemon` itself, with its listener on
 * port 0, against the emulator in this process, watching a real tree in a
 * temp directory, on a clock the test moves (`DaemonClock`). Each run's
 * record is kept in `records` as the daemon makes it current, and the test
 * waits for records rather than polling. What a process alone shows
 * (signals, exit codes, the CLI's flags and log format, memory) stays in
 * the tests that start `edgesync watch` (daemon-process.ts).
 */
export interface DaemonHarness {
  /** The harness's temp directory. */
  readonly dir: string;
  readonly emulator: RunningEmulator;
  /** The test's clock, unless `realTime`. */
  readonly clock: FakeClock;
  readonly debounceMs: number;
  readonly intervalMs: number;
  /** The daemon's listener. */
  readonly url: string;
  /** Every record the daemon made current, in order. */
  readonly records: readonly ReconcileRecord[];
  /** What the daemon logged, in order. */
  readonly logs: readonly LogLine[];
  /** Writes `text` to `path`, relative to the harness's directory. */
  write(path: string, text: string): Promise<void>;
  /**
   * Makes an edit the watcher sees, waits for the debounce it starts, moves
   * the clock past it, and resolves with the first record of the runs that
   * follow that `test` accepts (any, by default).
   */
  change(
    edit: () => Promise<unknown>,
    test?: (record: ReconcileRecord) => boolean | Promise<boolean>,
  ): Promise<ReconcileRecord>;
  /** The first record from number `from` on (1 is the startup run's) that `test` accepts. */
  record(
    from: number,
    test?: (record: ReconcileRecord) => boolean | Promise<boolean>,
  ): Promise<ReconcileRecord>;
  /** Moves the test's clock forward, firing what falls due (a resync, a retry, a settle check). */
  advance(ms: number): Promise<void>;
  /** What SIGHUP does to the daemon. */
  reload(): void;
  status(): Promise<DaemonStatusJson>;
  metrics(): Promise<ReturnType<typeof parsePrometheusText>>;
  /** Aborts the daemon as SIGTERM does and resolves with how the run in flight ended. */
  stop(): Promise<StopOutcome>;
}

/**
 * Gives each test a way to start in-process daemons, and stops all it
 * started after the test (`each`) or after the file's tests (`all`, for a
 * daemon started in `beforeAll`), failed or not: the daemon and its
 * listener, the watcher and timers, the service and the emulator, the temp
 * directory.
 */
export function useDaemonHarness(
  scope: 'each' | 'all' = 'each',
): (options?: DaemonHarnessOptions) => Promise<DaemonHarness> {
  const closers: (() => Promise<void>)[] = [];
  (scope === 'each' ? afterEach : afterAll)(async () => {
    const pending = closers.splice(0).reverse();
    for (const close of pending) await close();
  });
  return (options = {}) => startDaemonHarness(options, (close) => closers.push(close));
}

async function startDaemonHarness(
  options: DaemonHarnessOptions,
  onClose: (close: () => Promise<void>) => void,
): Promise<DaemonHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-daemon-'));
  onClose(() => rm(dir, { recursive: true, force: true }));
  const emulator = await startEmulator(options.emulator ?? {});
  onClose(() => emulator.close());
  const hop = options.service === undefined ? undefined : await options.service(emulator);
  if (hop !== undefined) onClose(() => hop.close());
  const service = hop?.service ?? emulator;
  await mkdir(join(dir, 'manifests'), { recursive: true });
  for (const [path, text] of Object.entries(options.files ?? {})) await writeUnder(dir, path, text);
  await options.prepare?.(dir);
  if (options.reconcileToken !== undefined)
    await writeFile(join(dir, 'token'), `${options.reconcileToken}\n`);
  if (options.statusToken !== undefined)
    await writeFile(join(dir, 'status-token'), `${options.statusToken}\n`, { mode: 0o600 });
  if (options.suspendToken !== undefined)
    await writeFile(join(dir, 'suspend-token'), `${options.suspendToken}\n`, { mode: 0o600 });

  const fake = new FakeClock(Date.now());
  const clock: DaemonClock = options.realTime ? systemClock() : fake;
  const kinds = options.kinds ?? KINDS;
  const owner = options.owner ?? 'default';
  const metrics = new WatchMetrics(kinds, () => clock.now());
  const budget = new RequestBudget({ requests: 1_000_000, windowMs: 60_000 });
  const api = createApiClient({
    baseUrl: service.url,
    apiKey: service.apiKey,
    budget,
    timeoutMs: options.requestTimeoutMs ?? 5_000,
    // Retries wait no real time: only the service's own windows are real.
    sleep: async () => {},
    onRequest: (event) => metrics.recordRequest(event),
  });
  const logs: LogLine[] = [];
  let watching: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    watching = resolve;
  });
  // The daemon logs "watching" just before it starts its loop: from then on, the test's clock drives it.
  const logger = pino(
    { level: 'debug' },
    linesInto(logs, (line) => {
      if (line.msg === 'watching') watching();
    }),
  );
  const cwd = join(dir, options.cwd ?? '.');
  const load: LoadOptions = {
    kinds: KINDS,
    validator: compileManifestSchema(),
    owner,
    cwd,
    env: options.env ?? {},
  };
  const records: ReconcileRecord[] = [];
  const waiters = new Set<() => void>();
  let reload: () => void = () => {
    throw new Error('the daemon subscribes to reloads as it starts');
  };
  const controller = new AbortController();
  const debounceMs = options.debounceMs ?? 200;
  const intervalMs = options.intervalMs ?? 3_600_000;
  let listened: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => {
    listened = resolve;
  });
  const running = runDaemon({
    kinds,
    paths: options.paths ?? [join(dir, 'manifests')],
    cwd,
    mode: options.mode ?? 'enforce',
    load,
    plan: { ...options.plan, kinds: KINDS, owner },
    api,
    budget,
    metrics,
    logger,
    clock,
    random: () => 0.5,
    listen: { host: '127.0.0.1', port: 0 },
    debounceMs,
    intervalMs,
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
    ...(options.settleMaxMs === undefined ? {} : { settleMaxMs: options.settleMaxMs }),
    signal: controller.signal,
    subscribeReload: (onReload) => {
      reload = onReload;
      return () => {};
    },
    onListening: (url) => listened(url),
    onRecord: (record) => {
      records.push(record);
      for (const wake of [...waiters]) wake();
    },
    ...(options.notify === undefined ? {} : { notify: options.notify }),
    ...(options.reconcileToken === undefined ? {} : { reconcileTokenFile: join(dir, 'token') }),
    ...(options.suspendToken === undefined ? {} : { suspendTokenFile: join(dir, 'suspend-token') }),
    ...(options.suspended === undefined ? {} : { suspended: options.suspended }),
    ...(options.statusToken === undefined ? {} : { statusTokenFile: join(dir, 'status-token') }),
  });
  let stopped = false;
  const ended = running.finally(() => {
    stopped = true;
  });
  const stop = async (): Promise<StopOutcome> => {
    controller.abort();
    // The shutdown's deadlines run on the test's clock: move it until the daemon has stopped.
    while (!stopped && !options.realTime) {
      await fake.advance(1_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return ended;
  };
  onClose(async () => {
    await stop();
  });
  const stoppedEarly = ended.then(() => {
    throw new Error('the daemon stopped before it started its loop');
  });
  const url = await Promise.race([listening, stoppedEarly]);
  await Promise.race([started, stoppedEarly]);

  const record = recordWaiter(records, waiters);

  const harness: DaemonHarness = {
    dir,
    emulator,
    clock: fake,
    debounceMs,
    intervalMs,
    url,
    records,
    logs,
    write: (path, text) => writeUnder(dir, path, text),
    change: async (edit, test) => {
      const from = records.length + 1;
      const debounced = options.realTime ? Promise.resolve() : fake.whenPending(debounceMs);
      await edit();
      await debounced;
      if (!options.realTime) await fake.advance(debounceMs);
      return record(from, test);
    },
    record,
    advance: (ms) => fake.advance(ms),
    reload: () => reload(),
    status: async () =>
      (await (
        await fetch(`${url}/status`, {
          headers:
            options.statusToken === undefined ? {} : { Authorization: `Bearer ${options.statusToken}` },
        })
      ).json()) as DaemonStatusJson,
    metrics: async () => parsePrometheusText(await (await fetch(`${url}/metrics`)).text()),
    stop,
  };
  return harness;
}

/** A stream that keeps each JSON line pino writes, parsed, in `lines`, and shows it to `onLine`. */
function linesInto(lines: LogLine[], onLine: (line: LogLine) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) {
        if (text === '') continue;
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        onLine(line);
      }
      done();
    },
  });
}

/**
 * `DaemonHarness.record`: the first record from number `from` on that
 * `test` accepts, checked as each record arrives (`waiters` are woken by
 * the daemon's `onRecord`); fails after WAIT_LIMIT_MS naming the last one.
 */
function recordWaiter(
  records: readonly ReconcileRecord[],
  waiters: Set<() => void>,
): DaemonHarness['record'] {
  return (from, test = () => true) =>
    new Promise<ReconcileRecord>((resolve, reject) => {
      let next = from - 1;
      let checking = false;
      const done = (): void => {
        clearTimeout(limit);
        waiters.delete(check);
      };
      const limit = setTimeout(() => {
        done();
        const last = records.at(-1)?.lastReconcile;
        reject(
          new Error(
            `no record from ${from} on passed the test within ${WAIT_LIMIT_MS} ms (${records.length} made; the last: ${last?.trigger} ${last?.result})`,
          ),
        );
      }, WAIT_LIMIT_MS);
      const check = (): void => {
        if (checking) return;
        checking = true;
        void (async () => {
          while (next < records.length) {
            const candidate = records[next] as ReconcileRecord;
            next += 1;
            if (await test(candidate)) {
              done();
              resolve(candidate);
              return;
            }
          }
          checking = false;
          if (next < records.length) check();
        })().catch((error: unknown) => {
          done();
          reject(error);
        });
      };
      waiters.add(check);
      check();
    });
}

async function writeUnder(dir: string, path: string, text: string): Promise<void> {
  await mkdir(dirname(join(dir, path)), { recursive: true });
  await writeFile(join(dir, path), text);
}
