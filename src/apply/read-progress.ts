import type { Logger } from 'pino';
import type {
  ApiRequest,
  ApiResponse,
  EdgeApi,
  ListPage,
  PaginateOptions,
  RequestOptions,
} from '../api/edge-api.js';
import {
  type BudgetView,
  budgetWaitMs,
  fitRow,
  formatDuration,
  formatNextSlot,
  type ProgressRow,
  type RowPart,
  rowWidth,
} from './progress-row.js';

export interface ReadProgressOptions {
  /** The terminal row to draw on; without one, a progress line is logged every `logEveryMs`. */
  readonly row?: ProgressRow;
  readonly logger: Logger;
  readonly budget?: BudgetView;
  /** Milliseconds since the epoch. @default Date.now */
  readonly clock?: () => number;
  /** How often the row is redrawn, in milliseconds. @default 1000 */
  readonly tickMs?: number;
  /** How often a progress line is logged without a row, in milliseconds. @default 10000 */
  readonly logEveryMs?: number;
  /** Without a row: where the progress line goes as a human line (stderr off a terminal); without it, the logger. */
  readonly lines?: (line: string) => void;
}

export interface ReadProgress {
  /** The client to read through: it counts the pages and the reads by ID as they arrive. */
  readonly api: EdgeApi;
  /**
   * Starts showing the read: `readsById` is how many reads by ID it will
   * make when that is known in advance (a GET per module of each TCP/TLS
   * edge the manifests name); a listing's pages are not known until read.
   */
  start(expected?: { readonly readsById: number }): void;
  /** Stops the timer and clears the row. */
  finish(): void;
}

const PARTS = ['label', 'account', 'elapsed', 'pages', 'readsById', 'focus', 'countdown'] as const;
type Part = (typeof PARTS)[number];

/** The least useful first: the counts and the wait are kept longest (docs/plan.md, Reading the account). */
export const READ_DROP_ORDER: readonly Part[] = ['countdown', 'elapsed', 'account'];

/**
 * Shows a read of the account while it runs, which before the first write
 * of a large apply can take minutes at the service's budget: on a terminal
 * `Reading the account (14s) · 37 pages, 12/40 reads by ID · waiting for
 * the request budget (next slot in 12 s)`, redrawn every second; otherwise
 * that line every `logEveryMs` as a human line, or a `reading the account`
 * log record.
 */
export function createReadProgress(api: EdgeApi, options: ReadProgressOptions): ReadProgress {
  const log = options.logger.child({ component: 'progress' });
  const clock = options.clock ?? Date.now;
  const counts = { pages: 0, readsById: 0 };
  let expectedById: number | undefined;
  let startedAt = 0;
  let loggedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  const { row, budget } = options;
  const tick = (): void => {
    const now = clock();
    const waitMs = budgetWaitMs(budget);
    if (row !== undefined) {
      row.show(readLine({ ...counts, expectedById, elapsedMs: now - startedAt, waitMs }, rowWidth(row)));
      return;
    }
    if (now - loggedAt < (options.logEveryMs ?? 10_000)) return;
    loggedAt = now;
    if (options.lines !== undefined) {
      const figures = { ...counts, expectedById, elapsedMs: now - startedAt, waitMs };
      options.lines(readLine(figures, Number.POSITIVE_INFINITY));
      return;
    }
    log.info(
      {
        pagesRead: counts.pages,
        readsById: counts.readsById,
        ...(expectedById === undefined ? {} : { readsByIdExpected: expectedById }),
        elapsedMs: now - startedAt,
        ...(waitMs === undefined ? {} : { waitingForBudgetMs: waitMs }),
      },
      'reading the account',
    );
  };
  return {
    api: countingReads(api, counts),
    start: (expected) => {
      if (timer !== undefined) return;
      expectedById = expected === undefined || expected.readsById === 0 ? undefined : expected.readsById;
      startedAt = clock();
      loggedAt = startedAt;
      timer = setInterval(tick, options.tickMs ?? 1000);
      timer.unref();
      if (row !== undefined) tick();
    },
    finish: () => {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      row?.clear();
    },
  };
}

interface ReadFigures {
  readonly pages: number;
  readonly readsById: number;
  readonly expectedById: number | undefined;
  readonly elapsedMs: number;
  readonly waitMs: number | undefined;
}

function readLine(figures: ReadFigures, width: number): string {
  const { pages, readsById, expectedById, waitMs } = figures;
  const byId =
    expectedById === undefined
      ? readsById > 0
        ? `${readsById} reads by ID`
        : undefined
      : `${Math.min(readsById, expectedById)}/${expectedById} reads by ID`;
  const parts: RowPart<Part>[] = [
    { key: 'label', text: 'Reading', before: ' ' },
    { key: 'account', text: 'the account', before: ' ' },
    { key: 'elapsed', text: `(${formatDuration(figures.elapsedMs)})`, before: ' ' },
    { key: 'pages', text: `${pages} page${pages === 1 ? '' : 's'}`, before: ' · ' },
    { key: 'readsById', text: byId, before: ', ' },
    {
      key: 'focus',
      text: waitMs === undefined ? undefined : 'waiting for the request budget',
      before: ' · ',
    },
    { key: 'countdown', text: waitMs === undefined ? undefined : formatNextSlot(waitMs), before: ' ' },
  ];
  return fitRow(parts, READ_DROP_ORDER, width);
}

/** `api`, counting each list page as it is handed over and each GET as it is answered (or fails). */
function countingReads(api: EdgeApi, counts: { pages: number; readsById: number }): EdgeApi {
  return {
    request: async <T>(request: ApiRequest, options?: RequestOptions): Promise<ApiResponse<T>> => {
      try {
        return await api.request<T>(request, options);
      } finally {
        if (request.method === 'GET') counts.readsById += 1;
      }
    },
    paginate: <T>(path: string, listKey: string, options?: PaginateOptions): AsyncIterable<ListPage<T>> => ({
      async *[Symbol.asyncIterator]() {
        for await (const page of api.paginate<T>(path, listKey, options)) {
          counts.pages += 1;
          yield page;
        }
      },
    }),
    stats: () => api.stats(),
  };
}
