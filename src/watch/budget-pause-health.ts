import type { LoopHealth } from './reconcile-loop.js';

/** What the heartbeat reads of the client's request budget (RequestBudget). */
export interface BudgetPause {
  /** Milliseconds until the current pause ends; 0 when not paused. */
  readonly pausedForMs: number;
  /** Milliseconds the service has answered every attempt with 429; 0 when it has not. */
  readonly refusingForMs: number;
}

/**
 * The reconcile loop's heartbeat with the service's refusals added: while
 * the budget is paused by a 429, the detail says for how much longer; once
 * the service has refused every request for longer than `intervalMs` (the
 * daemon has sent nothing that could land for a whole interval), the daemon
 * is stuck, and `/healthz` says so instead of "ok".
 */
export function withBudgetPause(health: LoopHealth, budget: BudgetPause, intervalMs: number): LoopHealth {
  const pausedS = Math.ceil(budget.pausedForMs / 1000);
  if (budget.refusingForMs > intervalMs) {
    return {
      alive: false,
      detail: `stuck: the service has answered every request with 429 for ${Math.round(budget.refusingForMs / 1000)} s, over --interval (requests paused ${pausedS} s more)`,
    };
  }
  if (budget.pausedForMs <= 0) return health;
  return {
    ...health,
    detail: `${health.detail}; requests paused ${pausedS} s more (the service answered 429)`,
  };
}
