import type { ServerResponse } from 'node:http';
import type { DaemonClock } from '../daemon-clock.js';
import type { DaemonEvent } from '../daemon-events.js';
import type { DaemonStatus } from '../daemon-status.js';
import type { BudgetRate } from '../read-share.js';
import type { RecordInventory } from '../record-inventory.js';
import { renderStatusPage } from './render-status-page.js';
import type { RequestHistory } from './request-history.js';
import { STATUS_PAGE_CSP } from './status-page-style.js';

export interface StatusPageSources {
  readonly status: () => DaemonStatus;
  readonly history: RequestHistory;
  /** The client's whole budget. */
  readonly budget: BudgetRate;
  readonly clock: DaemonClock;
  /** The current record's run and inventory, read together with `status`. @default no table */
  readonly current?: () => { readonly reconcile: number; readonly inventory: RecordInventory };
  /** The daemon's last events, newest first. @default none */
  readonly events?: () => readonly DaemonEvent[];
}

/**
 * The page as the daemon serves it, made afresh per request from what the
 * daemon holds: no request to the service, no file read.
 */
export function statusPageRenderer(sources: StatusPageSources): (query?: URLSearchParams) => string {
  const budgetPerMinute = (sources.budget.requests * 60_000) / sources.budget.windowMs;
  return (query) => {
    const nowMs = sources.clock.now();
    const current = sources.current?.();
    return renderStatusPage({
      status: sources.status(),
      minutes: sources.history.lastHour(nowMs),
      budgetPerMinute,
      nowMs,
      ...(current === undefined ? {} : { reconcile: current.reconcile, inventory: current.inventory }),
      ...(query === undefined ? {} : { query }),
      ...(sources.events === undefined ? {} : { events: sources.events() }),
    });
  };
}

/** Sends the page with the headers that keep it inert: its CSP, no sniffing, no caching, no framing, no referrer. */
export function sendStatusPage(res: ServerResponse, html: string): void {
  res.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': STATUS_PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
  res.end(html);
}
