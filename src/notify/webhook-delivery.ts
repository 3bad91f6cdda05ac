import type { Logger } from 'pino';
import { readPeer } from '../peer/read-peer.js';
import { VERSION } from '../version.js';
import type { WebhookTarget } from './webhook-target.js';

/** Why a notification did not reach a target: the target answered non-2xx, never answered, or its queue was full. */
export const DELIVERY_FAILURES = ['rejected', 'unreachable', 'dropped'] as const;
export type DeliveryFailure = (typeof DELIVERY_FAILURES)[number];

export interface WebhookDeliveryOptions {
  readonly targets: readonly WebhookTarget[];
  /** How long one attempt may take, milliseconds (a receiver that never answers). */
  readonly timeoutMs: number;
  /** Attempts after the first one fails. */
  readonly retries: number;
  /** Notifications waiting per target; past it the oldest is dropped (and counted). @default 100 */
  readonly queueLimit?: number;
  /** Delay before the first retry, milliseconds; each further one doubles it, to at most a minute. @default 1000 */
  readonly backoffMs?: number;
  /** Returns a number in [0, 1): spreads the retries. */
  readonly random: () => number;
  readonly logger: Logger;
  readonly onDelivered: (target: WebhookTarget) => void;
  readonly onFailed: (target: WebhookTarget, reason: DeliveryFailure) => void;
}

interface TargetQueue {
  readonly target: WebhookTarget;
  readonly waiting: string[];
  running: Promise<void> | null;
}

const MAX_BACKOFF_MS = 60_000;

/**
 * Posts notification bodies to every target, each target from its own
 * bounded queue, one request at a time and in order, with retries and
 * backoff. `send` only queues: a receiver that hangs or fails holds up its
 * own queue, never the caller (a reconcile). Nothing of a target's URL but
 * `shown` reaches a log line.
 */
export class WebhookDelivery {
  readonly #options: WebhookDeliveryOptions;
  readonly #log: Logger;
  readonly #queues: readonly TargetQueue[];
  readonly #closing = new AbortController();

  constructor(options: WebhookDeliveryOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'notifications' });
    this.#queues = options.targets.map((target) => ({ target, waiting: [], running: null }));
  }

  /** Queues for every target the body (JSON text) `bodyFor` makes for it, none when it gives null; returns at once. */
  send(bodyFor: (target: WebhookTarget) => string | null): void {
    if (this.#closing.signal.aborted) return;
    const limit = this.#options.queueLimit ?? 100;
    for (const queue of this.#queues) {
      const body = bodyFor(queue.target);
      if (body === null) continue;
      queue.waiting.push(body);
      if (queue.waiting.length > limit) {
        queue.waiting.shift();
        this.#fail(queue.target, 'dropped', { queued: limit });
      }
      queue.running ??= this.#drain(queue).finally(() => {
        queue.running = null;
      });
    }
  }

  /** Notifications queued or in flight, over all targets. */
  get pending(): number {
    return this.#queues.reduce(
      (sum, queue) => sum + queue.waiting.length + (queue.running === null ? 0 : 1),
      0,
    );
  }

  /**
   * Lets what is queued go out for up to `graceMs` milliseconds, then
   * abandons the rest (a receiver that never answers must not hold a
   * shutdown).
   */
  async close(graceMs: number): Promise<void> {
    const drained = Promise.all(this.#queues.map((queue) => queue.running));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.#closing.abort();
    for (const queue of this.#queues) queue.waiting.length = 0;
    await drained;
  }

  async #drain(queue: TargetQueue): Promise<void> {
    for (;;) {
      const body = queue.waiting.shift();
      if (body === undefined || this.#closing.signal.aborted) return;
      await this.#deliver(queue.target, body);
    }
  }

  async #deliver(target: WebhookTarget, body: string): Promise<void> {
    const attempts = this.#options.retries + 1;
    let last: AttemptResult = { ok: false, reason: 'unreachable', detail: {} };
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      if (attempt > 1) {
        const base = Math.min(MAX_BACKOFF_MS, (this.#options.backoffMs ?? 1000) * 2 ** (attempt - 2));
        if (!(await pause(base * (0.5 + this.#options.random()), this.#closing.signal))) return;
      }
      last = await post(target.url, body, this.#options.timeoutMs, this.#closing.signal);
      if (last.ok) {
        this.#options.onDelivered(target);
        return;
      }
      if (this.#closing.signal.aborted) return;
      this.#log.debug({ target: target.shown, attempt, ...last.detail }, 'notification attempt failed');
    }
    this.#fail(target, last.reason, { attempts, ...last.detail });
  }

  #fail(target: WebhookTarget, reason: DeliveryFailure, detail: Record<string, unknown>): void {
    this.#options.onFailed(target, reason);
    this.#log.warn({ target: target.shown, reason, ...detail }, 'notification not delivered');
  }
}

type AttemptResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly reason: 'rejected' | 'unreachable';
      readonly detail: Record<string, unknown>;
    };

/**
 * One POST within `timeoutMs` (connecting and the answer's headers): ok on a
 * 2xx. The answer's body says nothing more and is not read; its connection
 * is closed. Never rejects.
 */
async function post(url: URL, body: string, timeoutMs: number, closing: AbortSignal): Promise<AttemptResult> {
  const answer = await readPeer(
    {
      method: 'POST',
      url,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'User-Agent': `edgesync/${VERSION}` },
      body,
      deadlineMs: timeoutMs,
      maxBodyBytes: 0,
      readBody: false,
    },
    closing,
  );
  switch (answer.type) {
    case 'response':
      return answer.status >= 200 && answer.status < 300
        ? { ok: true }
        : { ok: false, reason: 'rejected', detail: { status: answer.status } };
    case 'failed':
      // The failure's name only: a socket's message may quote the address, and the name says enough.
      return { ok: false, reason: 'unreachable', detail: { code: answer.failure } };
    case 'too_large':
    case 'aborted':
      return { ok: false, reason: 'unreachable', detail: { code: answer.type } };
  }
}

/** Waits `ms` milliseconds; false when `signal` aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
