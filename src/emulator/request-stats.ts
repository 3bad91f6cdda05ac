/** What `GET /_emulator/stats` answers. */
export interface RequestStatsSnapshot {
  readonly total: number;
  /** Keyed by `METHOD /path/{template}`; unknown paths count under `METHOD (unmatched)`. */
  readonly byRoute: Readonly<Record<string, number>>;
  /** Keyed by status code; requests dropped without a response count under `dropped`. */
  readonly byStatus: Readonly<Record<string, number>>;
}

/** Counts every request except the stats endpoint's own, rate-limited, faulted and dropped ones included. */
export class RequestStats {
  private total = 0;
  private byRoute = new Map<string, number>();
  private byStatus = new Map<string, number>();

  record(routeKey: string, status: number | 'dropped'): void {
    this.total += 1;
    this.byRoute.set(routeKey, (this.byRoute.get(routeKey) ?? 0) + 1);
    const statusKey = String(status);
    this.byStatus.set(statusKey, (this.byStatus.get(statusKey) ?? 0) + 1);
  }

  snapshot(): RequestStatsSnapshot {
    return {
      total: this.total,
      byRoute: Object.fromEntries(this.byRoute),
      byStatus: Object.fromEntries(this.byStatus),
    };
  }

  reset(): void {
    this.total = 0;
    this.byRoute = new Map();
    this.byStatus = new Map();
  }
}
