import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestAbortedError } from '../../src/api/request-aborted-error.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { propertyRuns } from '../support/property-runs.js';
import { FakeTime, sleepUntilAborted } from './fake-time.js';

describe('RequestBudget', () => {
  it('grants a full window at once, then waits for the oldest slot to leave the window', async () => {
    const time = new FakeTime();
    const budget = new RequestBudget({ requests: 3, windowMs: 1000, clock: time.clock, sleep: time.sleep });
    const grantedAt: number[] = [];

    for (let i = 0; i < 5; i += 1) {
      await budget.acquire();
      grantedAt.push(time.now);
    }

    expect(grantedAt).toEqual([0, 0, 0, 1000, 1000]);
    expect(budget.waitedMs).toBe(1000);
  });

  it('rolls the window: a slot frees exactly windowMs after it was taken', async () => {
    const time = new FakeTime();
    const budget = new RequestBudget({ requests: 3, windowMs: 1000, clock: time.clock, sleep: time.sleep });
    const grantedAt: number[] = [];
    for (const at of [0, 400, 800]) {
      time.now = at;
      await budget.acquire();
    }
    time.now = 900;

    for (let i = 0; i < 3; i += 1) {
      await budget.acquire();
      grantedAt.push(time.now);
    }

    expect(grantedAt).toEqual([1000, 1400, 1800]);
    expect(time.sleeps).toEqual([100, 400, 400]);
    expect(budget.waitedMs).toBe(900);
  });

  it('never grants more than `requests` in any window, whatever the arrival pattern', async () => {
    const time = new FakeTime();
    const budget = new RequestBudget({ requests: 4, windowMs: 1000, clock: time.clock, sleep: time.sleep });
    const grantedAt: number[] = [];

    for (let i = 0; i < 30; i += 1) {
      time.now += (i * 37) % 250;
      await budget.acquire();
      grantedAt.push(time.now);
    }

    for (const start of grantedAt) {
      expect(grantedAt.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(4);
    }
  });

  it('grants each slot at the earliest moment the rolling window allows (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 1, maxLength: 40 }),
        async (requests, windowMs, gaps) => {
          const time = new FakeTime();
          const budget = new RequestBudget({ requests, windowMs, clock: time.clock, sleep: time.sleep });
          const granted: number[] = [];

          for (const gap of gaps) {
            time.now += gap;
            const arrival = time.now;
            await budget.acquire();
            const earliest = Math.max(arrival, (granted[granted.length - requests] ?? -Infinity) + windowMs);
            expect(time.now).toBe(earliest);
            granted.push(time.now);
          }

          for (const start of granted) {
            expect(granted.filter((at) => at >= start && at < start + windowMs).length).toBeLessThanOrEqual(
              requests,
            );
          }
        },
      ),
      { seed: 20260301, numRuns: propertyRuns({ small: 200, large: 2000 }) },
    );
  });

  it('pauseFor holds every acquirer, and a shorter pause does not shorten it', async () => {
    const time = new FakeTime(10_000);
    const budget = new RequestBudget({
      requests: 100,
      windowMs: 10_000,
      clock: time.clock,
      sleep: time.sleep,
    });
    budget.pauseFor(5000);
    budget.pauseFor(1000);
    const grantedAt: number[] = [];

    await Promise.all(
      [1, 2, 3].map(async () => {
        await budget.acquire();
        grantedAt.push(time.now);
      }),
    );

    expect(grantedAt).toEqual([15_000, 15_000, 15_000]);
    expect(budget.waitedMs).toBe(5000);
    expect(budget.pausedForMs).toBe(0);
  });

  it.each([1e15, Number.POSITIVE_INFINITY])(
    'pauses for one window at most, however long it is asked to (%d ms)',
    async (ms) => {
      const time = new FakeTime();
      const budget = new RequestBudget({
        requests: 100,
        windowMs: 60_000,
        clock: time.clock,
        sleep: time.sleep,
      });

      budget.pauseFor(ms);
      await budget.acquire();

      expect(time.sleeps).toEqual([60_000]);
      expect(time.now).toBe(60_000);
    },
  );

  it('says how long the service has refused every attempt, until it answers one otherwise', async () => {
    const time = new FakeTime();
    const budget = new RequestBudget({ requests: 100, windowMs: 1000, clock: time.clock, sleep: time.sleep });
    const refusing: number[] = [];

    refusing.push(budget.refusingForMs);
    budget.pauseFor(1000);
    await budget.acquire();
    budget.pauseFor(1000);
    await budget.acquire();
    refusing.push(budget.refusingForMs);
    budget.answered();
    refusing.push(budget.refusingForMs);

    expect(refusing).toEqual([0, 2000, 0]);
  });

  it('serves acquirers in arrival order', async () => {
    const time = new FakeTime();
    const budget = new RequestBudget({ requests: 1, windowMs: 100, clock: time.clock, sleep: time.sleep });
    const order: number[] = [];

    await Promise.all(
      [0, 1, 2, 3].map(async (n) => {
        await budget.acquire();
        order.push(n);
      }),
    );

    expect(order).toEqual([0, 1, 2, 3]);
    expect(time.now).toBe(300);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const budget = new RequestBudget({ requests: 1, windowMs: 1000 });

    await expect(budget.acquire(AbortSignal.abort())).rejects.toBeInstanceOf(RequestAbortedError);
  });

  it('stops waiting when aborted during a wait, and the aborted acquirer takes no slot', async () => {
    let now = 0;
    const budget = new RequestBudget({
      requests: 1,
      windowMs: 1000,
      clock: () => now,
      sleep: sleepUntilAborted,
    });
    await budget.acquire();
    const head = new AbortController();
    const queued = new AbortController();

    const waitingForSlot = budget.acquire(head.signal);
    const waitingForTurn = budget.acquire(queued.signal);
    queued.abort();
    head.abort();

    await expect(waitingForSlot).rejects.toMatchObject({ code: 'aborted' });
    await expect(waitingForTurn).rejects.toMatchObject({ code: 'aborted' });
    now = 1000;
    // Had an aborted acquirer taken the slot, this one would wait (and its signal would fire).
    await expect(budget.acquire(AbortSignal.timeout(2000))).resolves.toBeUndefined();
    expect(budget.waitedMs).toBe(0);
  });

  it.each([
    [{ requests: 0 }, /requests must be an integer >= 1 \(found 0\)/],
    [{ requests: 1.5 }, /found 1.5/],
    [{ windowMs: 0 }, /windowMs must be > 0 \(found 0\)/],
  ])('refuses %o', (options, message) => {
    expect(() => new RequestBudget(options)).toThrow(message);
  });
});

describe('RequestBudget: a slot counts from the answer (acquireSlot/settle)', () => {
  it('frees a settled slot windowMs after the answer, not after the send', async () => {
    const time = new FakeTime(0);
    const budget = new RequestBudget({ requests: 1, windowMs: 1000, clock: time.clock, sleep: time.sleep });

    const settle = await budget.acquireSlot();
    time.now = 400; // the answer arrives 400 ms after the send
    settle();
    await budget.acquire();

    expect(time.now).toBe(1400);
    expect(time.sleeps).toEqual([1000]);
  });

  it('counts an unsettled slot from its send, as acquire does', async () => {
    const time = new FakeTime(0);
    const budget = new RequestBudget({ requests: 1, windowMs: 1000, clock: time.clock, sleep: time.sleep });

    await budget.acquireSlot();
    time.now = 400;
    await budget.acquire();

    expect(time.now).toBe(1000);
  });

  it('moves only the settled stamp: other slots keep their send times and the window order', async () => {
    const time = new FakeTime(0);
    const budget = new RequestBudget({ requests: 2, windowMs: 1000, clock: time.clock, sleep: time.sleep });

    const first = await budget.acquireSlot();
    time.now = 100;
    await budget.acquireSlot();
    time.now = 700;
    first(); // the first answer comes after the second send
    await budget.acquire(); // waits for the oldest stamp: the second send at 100
    const afterSecond = time.now;
    await budget.acquire(); // then for the first answer at 700

    expect(afterSecond).toBe(1100);
    expect(time.now).toBe(1700);
  });
});
