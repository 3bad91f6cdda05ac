import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { readTokenFile } from '../../credential-file.js';
import type { CommitStatusProvider } from '../../git-host/commit-status-providers.js';
import type { CommitStatus } from '../../git-host/commit-status-text.js';
import { GitHostClient } from '../../git-host/git-host-client.js';
import type { DaemonClock } from '../daemon-clock.js';
import type { ReconcileRecord } from '../reconcile/reconcile-record.js';
import { CommitStatusBook, type Want } from './commit-status-book.js';
import { CommitStatusDelivery, POST_RESULTS, type PostResult } from './commit-status-delivery.js';
import type { CommitStatusesStatus } from './commit-statuses-status.js';
import { commitVerdict } from './commit-verdict.js';

/** Where the daemon posts commit statuses (`watch --commit-status`): decided by the command line. */
export interface CommitStatusOptions {
  readonly provider: CommitStatusProvider;
  readonly apiUrl: URL;
  readonly repo: string;
  readonly tokenFile: string;
  /** `edgesync/<owner>[/<instance>]`. */
  readonly context: string;
  /** --status-page-url; null: the status links nowhere. */
  readonly targetUrl: string | null;
  /** One request's deadline, milliseconds. @default 10000 */
  readonly timeoutMs?: number;
  /** The first retry's delay, milliseconds. @default 1000 */
  readonly backoffMs?: number;
}

/**
 * The daemon's commit statuses: each commit it checks out gets pending
 * when a run starts on it and its verdict from the run's record, and a
 * commit replaced before it went live gets the newer one's outcome
 * (`CommitStatusBook`); the posts go from a queue that never holds up a
 * reconcile (`CommitStatusDelivery`). Counted in the daemon's registry and
 * shown in `/status`.
 */
export class CommitStatusReporter {
  readonly #options: CommitStatusOptions;
  readonly #clock: DaemonClock;
  readonly #book = new CommitStatusBook();
  readonly #delivery: CommitStatusDelivery;
  #posted = 0;
  #failed = 0;
  #lastPosted: CommitStatusesStatus['lastPosted'] = null;
  #lastFailure: CommitStatusesStatus['lastFailure'] = null;

  constructor(
    options: CommitStatusOptions,
    parts: {
      readonly clock: DaemonClock;
      readonly random: () => number;
      readonly logger: Logger;
      readonly registry: Registry;
      /** Told of each post's outcome as it happens (the status page's events). */
      readonly onResult?: (
        result: PostResult,
        commit: string,
        detail: { status?: CommitStatus; message?: string },
      ) => void;
    },
  ) {
    this.#options = options;
    this.#clock = parts.clock;
    const posts = new Counter({
      name: 'edgesync_commit_status_posts_total',
      help: 'Commit status posts to the Git host: posted, retried (unreachable, 5xx, rate-limited: tried again), refused (a token or repository the host refuses: tried again every minute), dropped (too many commits waiting with a pending state).',
      labelNames: ['result'],
      registers: [parts.registry],
    });
    for (const result of POST_RESULTS) posts.inc({ result }, 0);
    const queued = new Gauge({
      name: 'edgesync_commit_status_queued',
      help: 'Commits whose status waits to be posted to the Git host.',
      registers: [parts.registry],
    });
    this.#delivery = new CommitStatusDelivery({
      client: new GitHostClient({
        provider: options.provider,
        apiUrl: options.apiUrl,
        repo: options.repo,
        token: async () => (await readTokenFile(options.tokenFile, '--commit-status-token-file')).token,
        timeoutMs: options.timeoutMs ?? 10_000,
        now: () => parts.clock.now(),
      }),
      context: options.context,
      targetUrl: options.targetUrl,
      clock: parts.clock,
      random: parts.random,
      logger: parts.logger,
      ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
      onResult: (result, commit, detail) => {
        posts.inc({ result });
        this.#noteResult(result, commit, detail);
        parts.onResult?.(result, commit, detail);
        queued.set(this.#delivery.pending);
      },
    });
  }

  /** A run starts on the checkout's commit: pending, when it is new. */
  reconciling(commit: string | null): void {
    this.#want(this.#book.reconciling(commit));
  }

  /** A run's record is the daemon's current one: its commit's verdict, and what it settles of replaced commits. */
  afterRecord(record: ReconcileRecord): void {
    const verdict = commitVerdict(record);
    if (verdict !== null) this.#want(this.#book.recorded(verdict.commit, verdict.status));
  }

  status(): CommitStatusesStatus {
    return {
      provider: this.#options.provider.name,
      repo: this.#options.repo,
      context: this.#options.context,
      posted: this.#posted,
      failed: this.#failed,
      queued: this.#delivery.pending,
      lastPosted: this.#lastPosted,
      lastFailure: this.#lastFailure,
    };
  }

  close(graceMs: number): Promise<void> {
    return this.#delivery.close(graceMs);
  }

  #want(wants: readonly Want[]): void {
    for (const { commit, wanted } of wants) this.#delivery.want(commit, wanted);
  }

  #noteResult(result: PostResult, commit: string, detail: { status?: CommitStatus; message?: string }): void {
    const at = new Date(this.#clock.now()).toISOString();
    if (result === 'posted' && detail.status !== undefined) {
      this.#posted += 1;
      this.#lastPosted = { commit, state: detail.status.state, description: detail.status.description, at };
    } else if (result !== 'posted') {
      this.#failed += 1;
      this.#lastFailure = { commit, message: detail.message ?? `${result}: too many commits waiting`, at };
    }
  }
}
