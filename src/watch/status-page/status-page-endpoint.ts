import type { ServerResponse } from 'node:http';
import type { DaemonClock } from '../daemon-clock.js';
import type { DaemonStatus } from '../daemon-status.js';
import type { BudgetRate } from '../read-share.js';
import { renderStatusPage } from './render-status-page.js';
import type { RequestHistory } from './request-history.js';
import { STATUS_PAGE_CSP } from './status-page-style.js';

export interface StatusPageSources {
  readonly status: () => DaemonStatus;
  readonly history: RequestHistory;
  /** The client's whole budget. */
  readonly budget: BudgetRate;
  readonly clock: DaemonClock;
}

/**
 * The page as the daemon serves it, made afresh per request from what the
 * daemon holds: no request to the service, no file read.
 */
export function statusPageRenderer(sources: StatusPageSources): () => string {
  const budgetPerMinute = (sources.budget.requests * 60_000) / sources.budget.windowMs;
  return () => {
    const nowMs = sources.clock.now();
    return renderStatusPage({
      status: sources.status(),
      minutes: sources.history.lastHour(nowMs),
      budgetPerMinute,
      nowMs,
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
