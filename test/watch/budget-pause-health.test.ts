import { describe, expect, it } from 'vitest';
import { withBudgetPause } from '../../src/watch/budget-pause-health.js';

const running = { alive: true, detail: 'reconcile running for 4 s' };

describe('withBudgetPause', () => {
  it('leaves the heartbeat as the loop says while nothing is paused', () => {
    expect(withBudgetPause(running, { pausedForMs: 0, refusingForMs: 0 }, 60_000)).toEqual(running);
  });

  it('says for how much longer requests are paused while the service refuses for less than an interval', () => {
    const health = withBudgetPause(running, { pausedForMs: 42_500, refusingForMs: 50_000 }, 60_000);

    expect(health).toEqual({
      alive: true,
      detail: 'reconcile running for 4 s; requests paused 43 s more (the service answered 429)',
    });
  });

  it('is stuck once the service has refused every request for longer than the interval', () => {
    const health = withBudgetPause(
      { alive: true, detail: 'idle' },
      { pausedForMs: 10_000, refusingForMs: 61_000 },
      60_000,
    );

    expect(health).toEqual({
      alive: false,
      detail:
        'stuck: the service has answered every request with 429 for 61 s, over --interval (requests paused 10 s more)',
    });
  });
});
