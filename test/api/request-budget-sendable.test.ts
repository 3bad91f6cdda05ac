import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/api/request-budget.js';
import { propertyRuns } from '../support/property-runs.js';
import { FakeTime } from './fake-time.js';

describe('RequestBudget.sendableInMs', () => {
  it('says when the last of `count` requests asked for now would be granted (property, against acquiring them)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 2000 }),
        async (requests, windowMs, earlierGaps, count, pauseMs) => {
          const time = new FakeTime();
          const budget = new RequestBudget({ requests, windowMs, clock: time.clock, sleep: time.sleep });
          for (const gap of earlierGaps) {
            time.now += gap;
            await budget.acquire();
          }
          if (pauseMs > 0) budget.pauseFor(pauseMs);
          const askedAt = time.now;

          const predicted = budget.sendableInMs(count);
          for (let request = 0; request < count; request += 1) await budget.acquire();

          expect(predicted).toBe(time.now - askedAt);
        },
      ),
      { seed: 20261126, numRuns: propertyRuns({ small: 300, large: 3000 }) },
    );
  });

  it('counts down while the window is full: the same requests are one second nearer a second later', async () => {
    const time = new FakeTime();
    const budget = new RequestBudget({
      requests: 20,
      windowMs: 10_000,
      clock: time.clock,
      sleep: time.sleep,
    });
    for (let request = 0; request < 20; request += 1) await budget.acquire();

    const now = budget.sendableInMs(30);
    time.now += 1000;
    const later = budget.sendableInMs(30);

    // 20 free when the window rolls at 10 s, the 10 after them one window later.
    expect(now).toBe(20_000);
    expect(later).toBe(19_000);
  });
});
