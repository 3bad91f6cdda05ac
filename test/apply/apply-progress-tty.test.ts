import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { shellPath } from '../support/shell-path.js';
import { TerminalScreen } from '../support/terminal-screen.js';
import { CLI, listRules, ROOT, rulesManifest } from './cli-process.js';

const SCRIPT = '/usr/bin/script';

/** The emulator's clock: moved forward by `offsetMs`, standing still at `frozenAt` while set. */
interface EmulatorClock {
  offsetMs: number;
  frozenAt: number | undefined;
}

/**
 * The service's budget in shape (a fixed number of requests per rolling
 * window), compressed: the emulator enforces it and the CLI is told it. 5
 * reads (4 lists, and the IP policy the rules name, by ID) and 15 creates
 * fill the first window, and the last 20 creates wait about 4 s for the next
 * one.
 */
const BUDGET = { requests: 20, windowMs: 4000 };
const RATE_LIMIT = `${BUDGET.requests}/${BUDGET.windowMs / 1000}s`;
const RULES = 35;

/** One process on a pseudo-terminal (util-linux `script`), its screen as a terminal emulator shows it. */
interface TerminalRun {
  readonly child: ChildProcess;
  readonly screen: TerminalScreen;
  /** The screen every 100 ms, and once more at the end. */
  readonly snapshots: string[][];
  readonly exited: Promise<number | null>;
  /** Types on the terminal's keyboard (`\x03` is Ctrl-C). */
  type(keys: string): void;
  /** Resolves with the screen once `test` holds for it; rejects after `limitMs`. */
  until(test: (lines: string[]) => boolean, limitMs?: number): Promise<string[]>;
}

function runOnTerminal(args: readonly string[], columns: number, emulator: RunningEmulator): TerminalRun {
  const command = [process.execPath, CLI, ...args].map((part) => JSON.stringify(part)).join(' ');
  // `exec`: Ctrl-C reaches edgesync itself, not a shell waiting for it.
  const child = spawn(SCRIPT, ['-qefc', `stty cols ${columns} rows 40; exec ${command}`, '/dev/null'], {
    cwd: ROOT,
    env: {
      PATH: shellPath(),
      EDGE_API_URL: emulator.url,
      EDGE_API_KEY: emulator.apiKey,
      TERM: 'xterm-256color',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const screen = new TerminalScreen(columns);
  child.stdout?.on('data', (chunk: Buffer) => screen.write(chunk.toString('utf8')));
  const snapshots: string[][] = [];
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let running = true;
  void closed.then(() => {
    running = false;
  });
  const snapshotting = (async () => {
    while (running) {
      snapshots.push(await screen.lines());
      await sleep(100);
    }
    await sleep(50);
    snapshots.push(await screen.lines());
  })();
  // Ended once the screen's last state is among the snapshots, so that `snapshots.at(-1)` is the screen at exit.
  const exited = closed.then(async (code) => {
    await snapshotting;
    return code;
  });
  return {
    child,
    screen,
    snapshots,
    exited,
    type: (keys) => child.stdin?.write(keys),
    until: async (test, limitMs = 30_000) => {
      const deadline = performance.now() + limitMs;
      for (;;) {
        const lines = await screen.lines();
        if (test(lines)) return lines;
        if (!running || performance.now() > deadline) {
          throw new Error(`the screen never showed what was awaited:\n${lines.join('\n')}`);
        }
        await sleep(50);
      }
    },
  };
}

/** The progress rows the snapshots caught: a row is the last line of the screen while the apply runs. */
function progressRows(run: TerminalRun): string[] {
  return run.snapshots.map((lines) => lines.at(-1) ?? '').filter((line) => line.includes(`/${RULES}`));
}

const ETA = /ETA (?:(\d+)m)?(\d+)s/;
function etaSeconds(row: string): number | undefined {
  const match = ETA.exec(row);
  return match === null ? undefined : Number(match[1] ?? 0) * 60 + Number(match[2]);
}

/** Only the row's own parts: nothing before "Applying" or the counts, no second row on one line. */
function expectNothingGlued(lines: readonly string[]): void {
  for (const line of lines) {
    if (line.includes('Applying') || line.includes('Reading the account')) {
      expect(line, line).toMatch(/^(Applying|Reading|\d+\/\d+)/);
      expect(line.split(/Applying|Reading the account/).length, line).toBe(2);
    }
  }
}

describe("apply and plan on a pseudo-terminal, under a budget of the service's shape", () => {
  const emulators: RunningEmulator[] = [];
  const dirs: string[] = [];
  const children: ChildProcess[] = [];

  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(emulators.splice(0).map((emulator) => emulator.close()));
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** An emulator enforcing BUDGET on a clock the test can move and stop, and a directory of RULES rules. */
  async function setUp(): Promise<{ emulator: RunningEmulator; dir: string; clock: EmulatorClock }> {
    const clock: EmulatorClock = { offsetMs: 0, frozenAt: undefined };
    const emulator = await startEmulator({
      seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')),
      rateLimit: BUDGET,
      now: () => clock.frozenAt ?? Date.now() + clock.offsetMs,
    });
    emulators.push(emulator);
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-progress-'));
    dirs.push(dir);
    await writeFile(join(dir, 'rules.yaml'), rulesManifest(RULES));
    return { emulator, dir, clock };
  }

  /**
   * Fills a fresh window of the emulator's budget and stops its clock, so that it answers 429
   * (Retry-After: the whole window) until the clock runs again, however slowly the next process starts.
   */
  async function exhaustBudget(emulator: RunningEmulator, clock: EmulatorClock): Promise<void> {
    clock.offsetMs += BUDGET.windowMs;
    clock.frozenAt = Date.now() + clock.offsetMs;
    for (let request = 0; request <= BUDGET.requests; request += 1) {
      const response = await fetch(`${emulator.url}/ip_policy_rules?limit=1`, {
        headers: { Authorization: `Bearer ${emulator.apiKey}`, 'Service-Version': '2' },
      });
      await response.arrayBuffer();
      if (response.status === 429) return;
    }
    throw new Error('the emulator never answered 429');
  }

  async function applyToTheEnd(
    columns: number,
  ): Promise<{ run: TerminalRun; emulator: RunningEmulator; dir: string; clock: EmulatorClock }> {
    const { emulator, dir, clock } = await setUp();
    const run = runOnTerminal(['apply', '--yes', '--rate-limit', RATE_LIMIT, dir], columns, emulator);
    children.push(run.child);

    const code = await run.exited;

    expect(code).toBe(0);
    expect(await listRules(emulator)).toHaveLength(RULES);
    const rows = progressRows(run);
    const waiting = rows.filter((row) => row.includes('waiting for the request budget'));
    // The ETA moves while the apply waits for the budget: it counts down with the wait.
    const etas = waiting.map(etaSeconds).filter((eta): eta is number => eta !== undefined);
    expect(new Set(etas).size, waiting.join('\n')).toBeGreaterThanOrEqual(2);
    expect(etas, waiting.join('\n')).toEqual([...etas].sort((a, b) => b - a));
    for (const row of rows) expect([...row].length, row).toBeLessThanOrEqual(columns - 1);
    for (const lines of run.snapshots) expectNothingGlued(lines);
    const final = run.snapshots.at(-1) ?? [];
    expect(final[0]).toBe(`read ${dir} (node_modules and hidden directories such as .git are skipped)`);
    expect(final.at(-1)).toMatch(new RegExp(`^Apply complete: ${RULES} created, .* in \\d+\\.\\ds\\.$`));
    expect(final.filter((line) => line.includes('Applying'))).toEqual([]);
    return { run, emulator, dir, clock };
  }

  it.skipIf(!existsSync(SCRIPT))(
    '200 columns: the whole row, an ETA that counts down while it waits; then a plan shows its read while the budget holds it',
    async () => {
      const { run, emulator, dir, clock } = await applyToTheEnd(200);

      const waiting = progressRows(run).filter((row) => row.includes('waiting for the request budget'));
      // No rate before a few seconds of data: the first rows are the burst of a fresh budget.
      expect(
        waiting.some((row) =>
          /^Applying \d+\/35 · (?:[\d.]+\/s · )?ETA \d+s · waiting for the request budget \(next slot in \d s\)/.test(
            row,
          ),
        ),
      ).toBe(true);

      // A plan right after: its reads (the lists, and the named IP policy by ID) meet a full window.
      await exhaustBudget(emulator, clock);
      const plan = runOnTerminal(['plan', '--rate-limit', RATE_LIMIT, dir], 200, emulator);
      children.push(plan.child);
      const reading = await plan.until((lines) =>
        /^Reading the account \(\d+s\) · 0 pages, 0\/1 reads by ID · waiting for the request budget \(next slot in \d+ s\)$/.test(
          lines.at(-1) ?? '',
        ),
      );
      // What was read is said before the account is read.
      expect(reading[0]).toBe(`read ${dir} (node_modules and hidden directories such as .git are skipped)`);
      // The row is alive while it waits: its elapsed time moves.
      const elapsed = /\((\d+)s\)/.exec(reading.at(-1) ?? '')?.[1];
      await plan.until((lines) => /\((\d+)s\)/.exec(lines.at(-1) ?? '')?.[1] !== elapsed);
      clock.frozenAt = undefined;
      const code = await plan.exited;

      expect(code).toBe(0);
      const final = plan.snapshots.at(-1) ?? [];
      expect(final, final.join('\n')).toContain('No changes. The account matches the manifests.');
      expect(final.filter((line) => line.includes('Reading the account'))).toEqual([]);
      for (const lines of plan.snapshots) expectNothingGlued(lines);
    },
    120_000,
  );

  it.skipIf(!existsSync(SCRIPT))(
    '80 columns: the countdown goes before the rate and "Applying"; Ctrl-C writes its warning on a line of its own',
    async () => {
      const { run } = await applyToTheEnd(80);

      for (const row of progressRows(run).filter((line) => line.includes('waiting for the request budget'))) {
        // With a rate the countdown no longer fits; before a rate exists (the first seconds) it does.
        expect(row, row).toMatch(
          /^Applying \d+\/35 · (?:[\d.]+\/s · ETA \d+s · waiting for the request budget|ETA \d+s · waiting for the request budget \(next slot in \d+ s\))$/,
        );
      }

      const { emulator, dir } = await setUp();
      const interrupted = runOnTerminal(['apply', '--yes', '--rate-limit', RATE_LIMIT, dir], 80, emulator);
      children.push(interrupted.child);
      await interrupted.until((lines) => (lines.at(-1) ?? '').includes('waiting for the request budget'));
      interrupted.type('\x03');
      const code = await interrupted.exited;

      expect(code).toBe(1);
      const final = interrupted.snapshots.at(-1) ?? [];
      const warning = final.find((line) => line.includes('stopping: no new actions start'));
      expect(warning, final.join('\n')).toMatch(/^warning: stopping: no new actions start/);
      expect(final.at(-2)).toMatch(/^Apply interrupted: 15 created, .*, 20 interrupted in \d+\.\ds\.$/);
      expect(final.at(-1)).toMatch(/^To finish, run the same apply again/);
      for (const lines of interrupted.snapshots) expectNothingGlued(lines);
    },
    120_000,
  );

  it.skipIf(!existsSync(SCRIPT))(
    'Ctrl-C with requests on the wire: the row says "Stopping: N requests in flight" and the count stops moving; the summary says how to finish',
    async () => {
      // Each request takes 1 s: Ctrl-C comes while creates are on the wire, and 30 or so have not started.
      const emulator = await startEmulator({
        seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')),
        latencyMs: 1000,
      });
      emulators.push(emulator);
      const dir = await mkdtemp(join(tmpdir(), 'edgesync-progress-'));
      dirs.push(dir);
      await writeFile(join(dir, 'rules.yaml'), rulesManifest(RULES));
      const run = runOnTerminal(['apply', '--yes', '--concurrency', '4', dir], 120, emulator);
      children.push(run.child);

      await run.until((lines) => /^Applying \d+\/35 · .*\(\+3 running\)/.test(lines.at(-1) ?? ''));
      run.type('\x03');
      const stopping = await run.until((lines) => (lines.at(-1) ?? '').startsWith('Stopping:'));
      const code = await run.exited;

      expect(code).toBe(1);
      expect(stopping.at(-1)).toMatch(/^Stopping: [1-4] requests? in flight · \d+\/35 done$/);
      // From the first "Stopping" row on, the row never goes back to counting: the actions written off do not move it.
      const rowsSeen = run.snapshots.map((lines) => lines.at(-1) ?? '');
      const firstStop = rowsSeen.findIndex((row) => row.startsWith('Stopping:'));
      const after = rowsSeen
        .slice(firstStop)
        .filter((row) => row.startsWith('Stopping:') || row.startsWith('Applying'));
      expect(
        after.every((row) => row.startsWith('Stopping:')),
        after.join('\n'),
      ).toBe(true);
      const inFlight = after.map((row) => Number(/Stopping: (\d+)/.exec(row)?.[1]));
      expect(inFlight, after.join('\n')).toEqual([...inFlight].sort((a, b) => b - a));
      const final = run.snapshots.at(-1) ?? [];
      const summary = final.findIndex((line) => line.startsWith('Apply interrupted:'));
      expect(summary, final.join('\n')).toBeGreaterThan(-1);
      expect(final[summary]).toMatch(/ \d+ interrupted in \d+\.\ds\.$/);
      expect(final[summary + 1]).toMatch(
        /^To finish, run the same apply again: it plans from the account as it is now and sends only what is left/,
      );
      expect(final.filter((line) => line.startsWith('Stopping:'))).toEqual([]);
    },
    120_000,
  );
});
