import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { failureBackoffMs } from '../../src/watch/failure-backoff.js';
import {
  ReconcileLoop,
  type ReconcileRun,
  type ReconcileTrigger,
  type ReconcileVerdict,
} from '../../src/watch/reconcile-loop.js';
import { FakeClock, flushMicrotasks } from './fake-clock.js';

interface Deferred {
  readonly trigger: ReconcileTrigger;
  readonly signal: AbortSignal;
  finish(verdict: ReconcileVerdict): void;
}

/** A reconcile whose runs the test ends by hand, recording each start. */
function controlledReconcile(): { runs: Deferred[]; reconcile: ReconcileRun } {
  const runs: Deferred[] = [];
  const reconcile: ReconcileRun = (trigger, signal) =>
    new Promise<ReconcileVerdict>((resolve) => {
      runs.push({ trigger, signal, finish: resolve });
    });
  return { runs, reconcile };
}

function makeLoop(clock: FakeClock): ReconcileLoop {
  return new ReconcileLoop({
    clock,
    random: () => 0.5,
    logger: pino({ level: 'silent' }),
    debounceMs: 500,
    intervalMs: 60_000,
  });
}

/** Stops the loop, moving the fake clock past the shutdown deadline of a run still in flight. */
async function stopLoop(loop: ReconcileLoop, clock: FakeClock): Promise<void> {
  const stopping = loop.stop(1000);
  await clock.advance(1000);
  await stopping;
}

async function finishLast(runs: Deferred[], verdict: ReconcileVerdict): Promise<void> {
  runs.at(-1)?.finish(verdict);
  await flushMicrotasks();
}

describe('ReconcileLoop', () => {
  it('runs at startup, then debounces a burst of changes into one run', async () => {
    const clock = new FakeClock();
    const { runs, reconcile } = controlledReconcile();
    const loop = makeLoop(clock);
    loop.start(reconcile);
    await flushMicrotasks();
    await finishLast(runs, 'ok');

    loop.notifyChange();
    await clock.advance(300);
    loop.notifyChange();
    await clock.advance(300);
    loop.notifyChange();
    await clock.advance(499);
    const runsBeforeQuiet = runs.length;
    await clock.advance(1);

    expect(runsBeforeQuiet).toBe(1);
    expect(runs.map((r) => r.trigger)).toEqual(['startup', 'change']);
    await stopLoop(loop, clock);
  });

  it('runs at the latest 10 debounce times after the first change of a burst that never goes quiet', async () => {
    const clock = new FakeClock();
    const { runs, reconcile } = controlledReconcile();
    const loop = makeLoop(clock);
    loop.start(reconcile);
    await flushMicrotasks();
    await finishLast(runs, 'ok');

    for (let step = 0; step < 24; step += 1) {
      loop.notifyChange();
      await clock.advance(250);
    }

    // 24 changes 250 ms apart (6 s, never 500 ms quiet): one run at 5 s.
    expect(runs.map((r) => r.trigger)).toEqual(['startup', 'change']);
    await stopLoop(loop, clock);
  });

  it('coalesces changes during a run into exactly one follow-up run', async () => {
    const clock = new FakeClock();
    const { runs, reconcile } = controlledReconcile();
    const loop = makeLoop(clock);
    loop.start(reconcile);
    await flushMicrotasks();

    for (let i = 0; i < 5; i += 1) {
      loop.notifyChange();
      await clock.advance(600);
    }
    const runsWhileBusy = runs.length;
    await finishLast(runs, 'ok');
    const runsAfterFirst = runs.length;
    await finishLast(runs, 'ok');
    await clock.advance(1000);

    expect(runsWhileBusy).toBe(1);
    expect(runsAfterFirst).toBe(2);
    expect(runs.map((r) => r.trigger)).toEqual(['startup', 'change']);
    await stopLoop(loop, clock);
  });

  it('resyncs after the interval with at most 10% jitter', async () => {
    const clock = new FakeClock();
    const { runs, reconcile } = controlledReconcile();
    const loop = new ReconcileLoop({
      clock,
      random: () => 0.999,
      logger: pino({ level: 'silent' }),
      intervalMs: 10_000,
    });
    loop.start(reconcile);
    await flushMicrotasks();
    await finishLast(runs, 'ok');

    const [delay] = clock.pendingDelays();
    await clock.advance(delay ?? 0);

    expect(delay).toBeGreaterThan(10_000);
    expect(delay).toBeLessThanOrEqual(11_000);
    expect(runs.map((r) => r.trigger)).toEqual(['startup', 'resync']);
    await stopLoop(loop, clock);
  });

  it('backs off exponentially on failures and resets after a success', async () => {
    const clock = new FakeClock();
    const { runs, reconcile } = controlledReconcile();
    const loop = makeLoop(clock);
    loop.start(reconcile);
    await flushMicrotasks();

    const delays: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      await finishLast(runs, 'failed');
      const [delay] = clock.pendingDelays();
      delays.push(delay ?? -1);
      await clock.advance(delay ?? 0);
    }
    await finishLast(runs, 'ok');
    const failuresAfterSuccess = loop.consecutiveFailures;
    const [resyncDelay] = clock.pendingDelays();
    await clock.advance(resyncDelay ?? 0);
    await finishLast(runs, 'failed');
    const [delayAfterReset] = clock.pendingDelays();

    expect(delays).toEqual([1000, 2000, 4000, 8000]);
    expect(failuresAfterSuccess).toBe(0);
    expect(resyncDelay).toBe(60_000);
    expect(delayAfterReset).toBe(1000);
    expect(runs.map((r) => r.trigger)).toEqual(['startup', 'retry', 'retry', 'retry', 'retry', 'resync']);
    await stopLoop(loop, clock);
  });

  it('treats a thrown error as a failure', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const loop = makeLoop(clock);

    loop.start(async () => {
      calls += 1;
      throw new Error('boom');
    });
    await flushMicrotasks();

    expect(calls).toBe(1);
    expect(loop.consecutiveFailures).toBe(1);
    expect(clock.pendingDelays()).toEqual([1000]);
    await stopLoop(loop, clock);
  });

  it('lets a run in flight finish within the shutdown timeout', async () => {
    const clock = new FakeClock();
    const { runs, reconcile } = controlledReconcile();
    const loop = makeLoop(clock);
    loop.start(reconcile);
    await flushMicrotasks();

    const stopping = loop.stop(5000);
    await clock.advance(1000);
    await finishLast(runs, 'ok');
    const outcome = await stopping;

    expect(outcome).toBe('finished');
    expect(runs[0]?.signal.aborted).toBe(false);
    expect(clock.pendingDelays()).toEqual([]);
  });

  it('aborts a run still in flight at the shutdown deadline', async () => {
    const clock = new FakeClock();
    const { runs, reconcile } = controlledReconcile();
    const loop = makeLoop(clock);
    loop.start(reconcile);
    await flushMicrotasks();

    const stopping = loop.stop(5000);
    await clock.advance(5000);
    const outcome = await stopping;

    expect(outcome).toBe('abandoned');
    expect(runs[0]?.signal.aborted).toBe(true);
  });

  it('is alive while idle or failing with backoff, and stuck once a run lasts over 3 intervals (60 s each here)', async () => {
    const clock = new FakeClock();
    const { runs, reconcile } = controlledReconcile();
    const loop = makeLoop(clock);
    const beforeStart = loop.health();
    loop.start(reconcile);
    await flushMicrotasks();
    await finishLast(runs, 'failed');
    const backingOff = loop.health();
    await clock.advance(1000);
    const running = loop.health();
    await clock.advance(180_000);
    const atLimit = loop.health();
    await clock.advance(1);
    const stuck = loop.health();
    await finishLast(runs, 'ok');
    const recovered = loop.health();
    await stopLoop(loop, clock);

    expect(beforeStart.alive).toBe(true);
    expect(backingOff).toEqual({ alive: true, detail: 'idle' });
    expect(runs[1]?.trigger).toBe('retry');
    expect(running.alive).toBe(true);
    expect(atLimit.alive).toBe(true);
    expect(stuck.alive).toBe(false);
    expect(stuck.detail).toContain('reconcile running for 180 s');
    expect(recovered.alive).toBe(true);
  });
});

describe('failureBackoffMs', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [5, 16_000],
    [9, 256_000],
    [10, 300_000],
    [1000, 300_000],
  ])('after %i failures waits %i ms (no jitter)', (failures, expected) => {
    expect(failureBackoffMs(failures, () => 0.5)).toBe(expected);
  });

  it('spreads by at most 10% either way', () => {
    expect(failureBackoffMs(3, () => 0)).toBe(3600);
    expect(failureBackoffMs(3, () => 0.99999)).toBeLessThanOrEqual(4400);
  });

  it('runs a forced reconcile at once when idle; during a run, keeps one forced follow-up that takes the place of any other and joins later requests', async () => {
    const clock = new FakeClock();
    const { runs, reconcile } = controlledReconcile();
    const loop = makeLoop(clock);
    loop.start(reconcile);
    await flushMicrotasks();
    await finishLast(runs, 'ok');

    const idle = loop.requestForced('sighup');
    await flushMicrotasks();
    loop.notifyChange();
    await clock.advance(500);
    const during = [loop.requestForced('forced'), loop.requestForced('forced'), loop.requestForced('sighup')];
    loop.notifyChange();
    await clock.advance(500);
    await finishLast(runs, 'ok');
    await finishLast(runs, 'ok');
    await stopLoop(loop, clock);

    expect(idle).toBe('started');
    expect(during).toEqual(['queued', 'coalesced', 'coalesced']);
    expect(runs.map((run) => run.trigger)).toEqual(['startup', 'sighup', 'forced']);
  });
});
