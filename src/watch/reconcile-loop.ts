import type { Logger } from 'pino';
import type { DaemonClock } from './daemon-clock.js';
import { type FailureBackoffOptions, failureBackoffMs, spread } from './failure-backoff.js';

/** A burst of changes delays a reconcile by at most this many debounce times. */
export const DEBOUNCE_MAX_WAIT_FACTOR = 10;

/**
 * Why a reconcile runs. `settle`: the settle period of a desired state whose
 * deletes were held back has passed, so the manifests are read again.
 * `sighup` and `forced` (POST /reconcile, `edgesync reconcile`) re-read the
 * manifests and the whole account, not the cache, before planning.
 */
export const RECONCILE_TRIGGERS = [
  'startup',
  'change',
  'resync',
  'retry',
  'settle',
  'sighup',
  'forced',
] as const;
export type ReconcileTrigger = (typeof RECONCILE_TRIGGERS)[number];

/** The triggers of a full re-read on demand. */
export const FORCED_TRIGGERS = ['sighup', 'forced'] as const satisfies readonly ReconcileTrigger[];
export type ForcedTrigger = (typeof FORCED_TRIGGERS)[number];

export function isForcedTrigger(trigger: ReconcileTrigger): trigger is ForcedTrigger {
  return (FORCED_TRIGGERS as readonly ReconcileTrigger[]).includes(trigger);
}

/** What became of a request for a forced reconcile: it runs now, after the run in flight, or with one already pending. */
export type ForcedRequestState = 'started' | 'queued' | 'coalesced';

/** `failed` makes the loop retry with backoff; `ok` waits for the next change or resync. */
export type ReconcileVerdict = 'ok' | 'failed';

/** One reconcile. Must stop early when `signal` aborts (shutdown past its deadline). */
export type ReconcileRun = (trigger: ReconcileTrigger, signal: AbortSignal) => Promise<ReconcileVerdict>;

/** Whether the loop still turns, as `/healthz` reports it. */
export interface LoopHealth {
  readonly alive: boolean;
  /** What the loop is doing, or why it counts as stuck. */
  readonly detail: string;
}

/** A run in flight longer than this many intervals counts as a stuck loop. */
export const STUCK_AFTER_INTERVALS = 3;

/** How `stop` ended: nothing was running, the run finished in time, or it was aborted. */
export type StopOutcome = 'idle' | 'finished' | 'abandoned';

export interface ReconcileLoopOptions {
  readonly clock: DaemonClock;
  /** Returns a number in [0, 1); seeded in tests. */
  readonly random: () => number;
  readonly logger: Logger;
  /** Quiet time after the last file change before a reconcile starts, milliseconds. @default 500 */
  readonly debounceMs?: number;
  /** Time between resyncs that catch drift made outside Git, milliseconds. @default 300000 (5 minutes) */
  readonly intervalMs?: number;
  /** Spread of the resync interval, as a fraction either way. @default 0.1 */
  readonly intervalJitter?: number;
  readonly backoff?: FailureBackoffOptions;
}

/**
 * Runs reconciles one at a time. File changes are debounced and coalesced; a
 * change that arrives during a run schedules exactly one follow-up run. After
 * a success the next run is the resync; after a failure it is a retry whose
 * delay grows exponentially until a success resets it.
 *
 * The loop is the scheduler only: everything that asks for a run (the
 * watcher, the background reads, the endpoint, SIGHUP) holds it from the
 * start, and `start` hands it the run once all that the run uses exists.
 */
export class ReconcileLoop {
  readonly #options: ReconcileLoopOptions;
  readonly #log: Logger;
  readonly #controller = new AbortController();
  #reconcile: ReconcileRun | null = null;
  #inFlight: Promise<void> | null = null;
  #runStartedAt = 0;
  #followUp: ReconcileTrigger | null = null;
  #cancelDebounce: (() => void) | null = null;
  #cancelMaxWait: (() => void) | null = null;
  #cancelNext: (() => void) | null = null;
  #cancelSettle: (() => void) | null = null;
  #failures = 0;
  #started = false;
  #stopped = false;

  constructor(options: ReconcileLoopOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'reconcile-loop' });
  }

  /** Consecutive failed runs; 0 after a success. */
  get consecutiveFailures(): number {
    return this.#failures;
  }

  /**
   * The loop's heartbeat: a loop that waits for its next run (an idle tick) is
   * alive; a run in flight is alive for STUCK_AFTER_INTERVALS intervals. Past
   * that (a request that never ends, a promise never settled) or with no next
   * run scheduled, it is stuck, and `/healthz` says 503 so that the kubelet
   * restarts the daemon.
   */
  health(): LoopHealth {
    if (!this.#started) return { alive: true, detail: 'starting' };
    if (this.#stopped) return { alive: true, detail: 'stopping' };
    const limitMs = STUCK_AFTER_INTERVALS * (this.#options.intervalMs ?? 300_000);
    if (this.#inFlight !== null) {
      const runningMs = this.#options.clock.now() - this.#runStartedAt;
      const running = `reconcile running for ${Math.round(runningMs / 1000)} s`;
      return runningMs <= limitMs
        ? { alive: true, detail: running }
        : { alive: false, detail: `stuck: ${running}, over ${STUCK_AFTER_INTERVALS}x --interval` };
    }
    if (this.#cancelNext === null && this.#cancelDebounce === null && this.#cancelSettle === null) {
      return { alive: false, detail: 'stuck: no reconcile running or scheduled' };
    }
    return { alive: true, detail: 'idle' };
  }

  /** Starts running `reconcile`, the first run at once. */
  start(reconcile: ReconcileRun): void {
    if (this.#started) return;
    this.#started = true;
    this.#reconcile = reconcile;
    this.#request('startup');
  }

  /**
   * A manifest changed: reconcile once things have been quiet for the
   * debounce time, or at the latest DEBOUNCE_MAX_WAIT_FACTOR debounce times
   * after the first change of a burst, so that a tree that never stops
   * changing (a writer in a loop, hostile churn) cannot hold back a change
   * made before it.
   */
  notifyChange(): void {
    if (this.#stopped || !this.#started) return;
    const debounceMs = this.#options.debounceMs ?? 500;
    const fire = (): void => {
      this.#cancelDebounce?.();
      this.#cancelMaxWait?.();
      this.#cancelDebounce = null;
      this.#cancelMaxWait = null;
      this.#request('change');
    };
    this.#cancelDebounce?.();
    this.#cancelDebounce = this.#options.clock.setTimeout(fire, debounceMs);
    this.#cancelMaxWait ??= this.#options.clock.setTimeout(fire, debounceMs * DEBOUNCE_MAX_WAIT_FACTOR);
  }

  /**
   * Reconcile now without waiting for the debounce: a background full read
   * found drift. Coalesced with a run in flight like any other request.
   */
  requestResync(): void {
    if (this.#stopped || !this.#started) return;
    this.#request('resync');
  }

  /**
   * A full re-read on demand (SIGHUP, POST /reconcile): runs at once, or
   * after the run in flight. At most one waits: it takes the place of any
   * other follow-up (it does all that one would), and further requests
   * join it.
   */
  requestForced(trigger: ForcedTrigger): ForcedRequestState {
    if (this.#stopped || !this.#started) return 'coalesced';
    if (this.#inFlight === null) {
      this.#request(trigger);
      return 'started';
    }
    if (this.#followUp !== null && isForcedTrigger(this.#followUp)) return 'coalesced';
    this.#followUp = trigger;
    return 'queued';
  }

  /**
   * Reconcile once `delayMs` (milliseconds) have passed: a run held deletes
   * back until the manifests settle. A later request replaces an earlier
   * one, as the settle period only moves later.
   */
  requestSettle(delayMs: number): void {
    if (this.#stopped || !this.#started) return;
    this.#cancelSettle?.();
    this.#cancelSettle = this.#options.clock.setTimeout(() => {
      this.#cancelSettle = null;
      this.#request('settle');
    }, delayMs);
  }

  /**
   * Stops scheduling. A run in flight may finish within `timeoutMs`
   * (milliseconds); past that its signal aborts and it is abandoned.
   */
  async stop(timeoutMs: number): Promise<StopOutcome> {
    this.#stopped = true;
    this.#followUp = null;
    this.#cancelDebounce?.();
    this.#cancelNext?.();
    this.#cancelSettle?.();
    this.#cancelDebounce = null;
    this.#cancelNext = null;
    this.#cancelSettle = null;
    const inFlight = this.#inFlight;
    if (inFlight === null) return 'idle';
    let cancelDeadline: () => void = () => {};
    const deadline = new Promise<'abandoned'>((resolve) => {
      cancelDeadline = this.#options.clock.setTimeout(() => resolve('abandoned'), timeoutMs);
    });
    const outcome = await Promise.race([inFlight.then(() => 'finished' as const), deadline]);
    cancelDeadline();
    if (outcome === 'abandoned') this.#controller.abort(new Error('shutdown deadline passed'));
    return outcome;
  }

  #request(trigger: ReconcileTrigger): void {
    const reconcile = this.#reconcile;
    if (this.#stopped || reconcile === null) return;
    if (this.#inFlight !== null) {
      this.#followUp ??= trigger;
      return;
    }
    this.#cancelNext?.();
    this.#cancelNext = null;
    this.#runStartedAt = this.#options.clock.now();
    this.#inFlight = this.#run(trigger, reconcile);
  }

  async #run(trigger: ReconcileTrigger, reconcile: ReconcileRun): Promise<void> {
    let verdict: ReconcileVerdict;
    try {
      verdict = await reconcile(trigger, this.#controller.signal);
    } catch (err) {
      this.#log.error({ err, trigger }, 'reconcile threw');
      verdict = 'failed';
    }
    this.#inFlight = null;
    if (this.#stopped) return;
    if (verdict === 'failed') {
      this.#failures += 1;
      const delayMs = failureBackoffMs(this.#failures, this.#options.random, this.#options.backoff);
      this.#log.warn({ failures: this.#failures, delayMs }, 'retry scheduled');
      this.#schedule('retry', delayMs);
    } else {
      this.#failures = 0;
      const intervalMs = this.#options.intervalMs ?? 300_000;
      const delayMs = Math.round(
        spread(intervalMs, this.#options.intervalJitter ?? 0.1, this.#options.random),
      );
      this.#schedule('resync', delayMs);
    }
    const followUp = this.#followUp;
    this.#followUp = null;
    if (followUp !== null) this.#request(followUp);
  }

  #schedule(trigger: ReconcileTrigger, delayMs: number): void {
    this.#cancelNext?.();
    this.#cancelNext = this.#options.clock.setTimeout(() => {
      this.#cancelNext = null;
      this.#request(trigger);
    }, delayMs);
  }
}
