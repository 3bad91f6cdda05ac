import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { createReadProgress, READ_DROP_ORDER } from '../../src/apply/read-progress.js';
import { TerminalRow } from '../../src/cli/terminal-row.js';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { readLiveState } from '../../src/kinds/read-live-state.js';
import { KINDS } from '../../src/kinds/registry.js';
import { sleepUntilAborted } from '../api/fake-time.js';
import { ROOT } from '../support/edgesync-cli.js';
import { silentLogger } from './hand-plan.js';

const TCP_EDGE = 'edgtcp_SshEdge00000000000000000001';

function terminal(columns: number) {
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns });
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const rows = (): string[] =>
    Buffer.concat(chunks)
      .toString('utf8')
      .split('\r\x1b[K')
      .filter((line) => line !== '');
  return { row: new TerminalRow(stream), rows, output: () => Buffer.concat(chunks).toString('utf8') };
}

describe('createReadProgress', () => {
  let emulator: RunningEmulator | undefined;

  afterEach(async () => {
    vi.useRealTimers();
    await emulator?.close();
    emulator = undefined;
  });

  it('counts the pages and the reads by ID of a real read of the account, and clears its row', async () => {
    const seed = await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml'));
    emulator = await startEmulator({ seed, pageSizeMax: 1 });
    const budget = new RequestBudget({ requests: 10_000, windowMs: 1000 });
    const api = createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, budget });
    const { row, rows, output } = terminal(200);
    const reading = createReadProgress(api, { row, logger: silentLogger, budget, tickMs: 5 });

    reading.start({ readsById: 1 });
    const live = await readLiveState(reading.api, { kinds: KINDS, idsByKind: { tcp_edges: [TCP_EDGE] } });
    await new Promise((resolve) => setTimeout(resolve, 30));
    reading.finish();

    const pages = live.stats.pages;
    expect(pages).toBeGreaterThanOrEqual(4);
    // The elapsed seconds are the wall clock's (a loaded machine may show 1s): the counts are what is checked.
    expect(rows()[0]).toMatch(/^Reading the account \(\d+s\) · 0 pages, 0\/1 reads by ID$/);
    expect(rows().at(-1)).toMatch(
      new RegExp(`^Reading the account \\(\\d+s\\) · ${pages} pages, 1/1 reads by ID$`),
    );
    expect(output().endsWith('\r\x1b[K')).toBe(true);
  });

  it('logs where the read stands every logEveryMs without a terminal, the wait for the budget included', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const logs = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    logs.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line));
    });
    const budget = new RequestBudget({ requests: 1, windowMs: 60_000, sleep: sleepUntilAborted });
    await budget.acquire();
    const stop = new AbortController();
    const waiting = budget.acquire(stop.signal).catch(() => undefined);
    const api = createApiClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', budget });
    const reading = createReadProgress(api, { logger: pino(logs), budget });

    reading.start({ readsById: 6 });
    vi.advanceTimersByTime(20_000);
    reading.finish();
    stop.abort();
    await waiting;

    expect(lines.map((line) => [line.msg, line.pagesRead, line.readsByIdExpected, line.elapsedMs])).toEqual([
      ['reading the account', 0, 6, 10_000],
      ['reading the account', 0, 6, 20_000],
    ]);
    expect(lines.map((line) => line.waitingForBudgetMs)).toEqual([50_000, 40_000]);
  });

  it('drops the parts of its row in the order docs/plan.md gives', async () => {
    const docs = await readFile(join(ROOT, 'docs/plan.md'), 'utf8');
    const sentence = /its parts are dropped in this\s+order: (.*?); then the row is/s.exec(docs)?.[1] ?? '';
    const documented = sentence.split(/,\s+/).map((part) => part.trim());
    const words: Partial<Record<(typeof READ_DROP_ORDER)[number], string>> = {
      countdown: 'the countdown',
      elapsed: 'the time',
      account: 'the words "the account"',
    };

    expect(READ_DROP_ORDER.map((part) => words[part] ?? part)).toEqual(documented);
  });

  it.each([
    [
      200,
      'Reading the account (3s) · 1 page, 1/4 reads by ID · waiting for the request budget (next slot in 57 s)',
    ],
    [85, 'Reading the account (3s) · 1 page, 1/4 reads by ID · waiting for the request budget'],
    [80, 'Reading the account · 1 page, 1/4 reads by ID · waiting for the request budget'],
    [70, 'Reading · 1 page, 1/4 reads by ID · waiting for the request budget'],
    [40, 'Reading · 1 page, 1/4 reads by ID · wa…'],
  ])('at %i columns: %s', async (columns, expected) => {
    let now = 0;
    const budget = new RequestBudget({
      requests: 1,
      windowMs: 60_000,
      clock: () => now,
      sleep: sleepUntilAborted,
    });
    await budget.acquire();
    const stop = new AbortController();
    const waiting = budget.acquire(stop.signal).catch(() => undefined);
    emulator = await startEmulator({
      seed: await loadSeedFile(join(ROOT, 'examples/emulator-seed.yaml')),
      pageSizeMax: 1,
    });
    const api = createApiClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      budget: new RequestBudget({ requests: 100, windowMs: 1000 }),
    });
    const { row, rows } = terminal(columns);
    const reading = createReadProgress(api, {
      row,
      logger: silentLogger,
      budget,
      clock: () => now,
      tickMs: 5,
    });

    reading.start({ readsById: 4 });
    const pages = reading.api.paginate('/ip_policy_rules', 'ip_policy_rules')[Symbol.asyncIterator]();
    await pages.next();
    await pages.return?.();
    await reading.api.request({ method: 'GET', path: `/edges/tcp/${TCP_EDGE}` });
    now = 3000;
    await new Promise((resolve) => setTimeout(resolve, 30));
    reading.finish();
    stop.abort();
    await waiting;

    expect(rows().at(-1)).toBe(expected);
  });
});
