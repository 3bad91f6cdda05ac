import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { NotifyFormat } from './chat-format.js';
import {
  type DaemonIdentity,
  NOTIFICATION_EVENTS,
  type Notification,
  type NotificationEvent,
  scrubbedNotification,
  webhookBody,
} from './notification.js';
import {
  NotificationTracker,
  type ObservedExpiry,
  type ObservedHealth,
  type ObservedRun,
  type ObservedStatus,
} from './notification-tracker.js';
import { DELIVERY_FAILURES, WebhookDelivery } from './webhook-delivery.js';
import type { WebhookTarget } from './webhook-target.js';

/** Time as the notifier sees it: the daemon's clock. */
export interface NotifierClock {
  now(): number;
  /** Calls `callback` once after `ms` milliseconds; the returned function cancels it. */
  setTimeout(callback: () => void, ms: number): () => void;
}

export interface NotifierOptions {
  readonly targets: readonly WebhookTarget[];
  /** Who speaks: owner, `--instance`, the service's host; in every body. */
  readonly identity: DaemonIdentity;
  readonly mode: string;
  /** `--status-page-url`, in every body; null when not set. */
  readonly statusPageUrl: string | null;
  /** One delivery attempt's limit, milliseconds. */
  readonly timeoutMs: number;
  /** Attempts after a failed first one. */
  readonly retries: number;
  /** A CA (any kind's `expiry`) within this many milliseconds of its end is notified. */
  readonly expiryWindowMs: number;
  /** The daemon's metrics registry: the notification counters join it. */
  readonly registry: Registry;
  readonly logger: Logger;
  readonly clock: NotifierClock;
  /** Returns a number in [0, 1). */
  readonly random: () => number;
  /**
   * The run's secrets (API key, manifest secrets, webhook URLs) out of a
   * text: applied to each value of a notification before it is escaped for
   * a chat, and to each body before it is sent.
   */
  readonly scrub: (text: string) => string;
  /** The loop's heartbeat, checked every `healthCheckMs`. */
  readonly health: () => ObservedHealth;
  /** Milliseconds between heartbeat checks. @default 10000 */
  readonly healthCheckMs?: number;
  /** Delay before a failed delivery's first retry, milliseconds. @default 1000 */
  readonly backoffMs?: number;
  /** Told of each notification made and each post's outcome, as they happen (the status page's events). */
  readonly onOutcome?: (outcome: NotifierOutcome) => void;
}

/** A notification made (its summary scrubbed), or one post of it to a target delivered or given up (the target as `shown`). */
export type NotifierOutcome =
  | { readonly type: 'made'; readonly event: string; readonly severity: string; readonly summary: string }
  | { readonly type: 'delivered'; readonly target: string }
  | { readonly type: 'failed'; readonly target: string; readonly reason: string };

/** What `/status` shows of the notifications: never a URL, only its scheme and host. */
export interface NotifierStatus {
  readonly targets: readonly string[];
  readonly sent: number;
  readonly delivered: number;
  readonly failed: number;
  readonly pending: number;
}

/**
 * The daemon's notifications: the tracker decides what is news, the
 * delivery posts it. Everything here returns at once; the posting runs
 * beside the reconciles and never holds one up.
 */
export class Notifier {
  readonly #options: NotifierOptions;
  readonly #tracker: NotificationTracker;
  readonly #delivery: WebhookDelivery;
  readonly #log: Logger;
  readonly #made: Counter<'event'>;
  readonly #failedTotal: Counter<'reason'>;
  #sent = 0;
  #delivered = 0;
  #failed = 0;
  #cancelHealth: (() => void) | null = null;
  #closed = false;

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'notifications' });
    this.#tracker = new NotificationTracker({
      identity: options.identity,
      mode: options.mode,
      statusPageUrl: options.statusPageUrl,
    });
    const registers = [options.registry];
    this.#made = new Counter({
      name: 'edgesync_notifications_total',
      help: 'Notifications the daemon made (each posted to every --notify target), by event.',
      labelNames: ['event'],
      registers,
    });
    for (const event of NOTIFICATION_EVENTS) this.#made.inc({ event }, 0);
    const delivered = new Counter({
      name: 'edgesync_notifications_delivered_total',
      help: 'Notification posts a target answered with 2xx.',
      registers,
    });
    this.#failedTotal = new Counter({
      name: 'edgesync_notifications_failed_total',
      help: 'Notification posts given up: rejected (non-2xx after the retries), unreachable (no answer in --notify-timeout after the retries), dropped (the target’s queue was full).',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of DELIVERY_FAILURES) this.#failedTotal.inc({ reason }, 0);
    this.#delivery = new WebhookDelivery({
      targets: options.targets,
      timeoutMs: options.timeoutMs,
      retries: options.retries,
      random: options.random,
      logger: options.logger,
      ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
      onDelivered: (target) => {
        this.#delivered += 1;
        delivered.inc();
        options.onOutcome?.({ type: 'delivered', target: target.shown });
      },
      onFailed: (target, reason) => {
        this.#failed += 1;
        this.#failedTotal.inc({ reason });
        options.onOutcome?.({ type: 'failed', target: target.shown, reason });
      },
    });
  }

  /** Starts checking the loop's heartbeat. */
  start(): void {
    this.#scheduleHealth();
  }

  /** After each reconcile, with the daemon's status, what expires and what the run's record adds. Returns at once. */
  afterReconcile(status: ObservedStatus, expiries: readonly ObservedExpiry[], run?: ObservedRun): void {
    const now = this.#options.clock.now();
    this.#post([
      ...this.#tracker.observeReconcile(status, now, run),
      ...this.#tracker.observeExpiries(expiries, now, this.#options.expiryWindowMs),
    ]);
  }

  /**
   * An event outside the reconciles (a person suspended the daemon): posted
   * like the others to each target that takes it. Returns at once.
   */
  announce(event: NotificationEvent, summary: string): void {
    this.#post([this.#tracker.observeEvent(event, summary, this.#options.clock.now())]);
  }

  status(): NotifierStatus {
    return {
      targets: this.#options.targets.map((target) => target.shown),
      sent: this.#sent,
      delivered: this.#delivered,
      failed: this.#failed,
      pending: this.#delivery.pending,
    };
  }

  /** Stops the heartbeat checks; what is queued has `graceMs` milliseconds to go out. */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    this.#cancelHealth?.();
    await this.#delivery.close(graceMs);
  }

  #scheduleHealth(): void {
    if (this.#closed) return;
    this.#cancelHealth = this.#options.clock.setTimeout(() => {
      this.#post(this.#tracker.observeHealth(this.#options.health(), this.#options.clock.now()));
      this.#scheduleHealth();
    }, this.#options.healthCheckMs ?? 10_000);
  }

  #post(notifications: readonly Notification[]): void {
    for (const notification of notifications) {
      this.#made.inc({ event: notification.event });
      this.#options.onOutcome?.({
        type: 'made',
        event: notification.event,
        severity: notification.severity,
        summary: this.#options.scrub(notification.summary),
      });
      this.#log.info(
        {
          event: notification.event,
          severity: notification.severity,
          summary: this.#options.scrub(notification.summary),
        },
        'notify',
      );
      if (this.#options.targets.length === 0) continue;
      this.#sent += 1;
      const scrubbed = scrubbedNotification(notification, this.#options.scrub);
      const bodies = new Map<NotifyFormat, string>();
      this.#delivery.send((target) => {
        if (target.events !== null && !target.events.has(notification.event)) return null;
        let body = bodies.get(target.format);
        if (body === undefined) {
          body = this.#options.scrub(JSON.stringify(webhookBody(scrubbed, target.format)));
          bodies.set(target.format, body);
        }
        return body;
      });
    }
  }
}
