import { describe, expect, it } from 'vitest';
import { ReadShare } from '../../src/watch/read-share.js';

/** A clock that only moves when someone sleeps: every wait is exact and instant. */
function fakeTime(): { now: () => number; sleep: (ms: number) => Promise<void> } {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
}

describe('ReadShare', () => {
  it.each([
    [0.25, { requests: 120, windowMs: 60_000 }],
    [0.05, { requests: 120, windowMs: 6_000 }],
    [1, { requests: 10, windowMs: 1_000 }],
    [0.1, { requests: 7, windowMs: 60_000 }],
  ])(
    'never grants more than %d of %o in any window, and spreads the grants over it',
    async (share, budget) => {
      const time = fakeTime();
      const readShare = new ReadShare({ budget, share, clock: time.now, sleep: time.sleep });
      const grants: number[] = [];

      for (let index = 0; index < 200; index += 1) {
        await readShare.acquire();
        grants.push(time.now());
      }

      const allowed = Math.max(1, Math.floor(share * budget.requests));
      const mostInAnyWindow = Math.max(
        ...grants.map((start) => grants.filter((at) => at >= start && at < start + budget.windowMs).length),
      );
      expect(mostInAnyWindow).toBeLessThanOrEqual(allowed);
      expect(readShare.cycleMs(200)).toBeGreaterThanOrEqual(((200 - allowed) / allowed) * budget.windowMs);
    },
  );

  it('holds background requests while foreground work runs, and lets them go when it ends', async () => {
    const time = fakeTime();
    const readShare = new ReadShare({
      budget: { requests: 120, windowMs: 60_000 },
      share: 0.25,
      clock: time.now,
      sleep: time.sleep,
    });
    const release = readShare.holdBackground();
    let granted = false;

    const waiting = readShare.acquire().then(() => {
      granted = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    const grantedWhileHeld = granted;
    release();
    await waiting;

    expect(grantedWhileHeld).toBe(false);
    expect(granted).toBe(true);
  });
});
