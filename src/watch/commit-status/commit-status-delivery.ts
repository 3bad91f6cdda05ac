import type { Logger } from 'pino';
import {
  type CommitStatus,
  isFinalState,
  liveThroughStatus,
  shortCommit,
  supersededStatus,
} from '../../git-host/commit-status-text.js';
import type { GitHostClient, HostOutcome } from '../../git-host/git-host-client.js';
import type { DaemonClock } from '../daemon-clock.js';
import type { WantedStatus } from './commit-status-book.js';

/** Why a post did not go (yet): the host asked for a retry, refused it, or the queue was full. */
export const POST_RESULTS = ['posted', 'retried', 'refused', 'dropped'] as const;
export type PostResult = (typeof POST_RESULTS)[number];

export interface CommitStatusDeliveryOptions {
  readonly client: GitHostClient;
  /** `edgesync/<owner>[/<instance>]`. */
  readonly context: string;
  /** --status-page-url: where the status links; null for no link. */
  readonly targetUrl: string | null;
  readonly clock: DaemonClock;
  /** Returns a number in [0, 1): spreads the retries. */
  readonly random: () => number;
  readonly logger: Logger;
  /** Each post's end: posted, or why not. */
  readonly onResult: (
    result: PostResult,
    commit: string,
    detail: { status?: CommitStatus; message?: string },
  ) => void;
  /** Commits waiting with a pending state; past it the oldest pending one is dropped (a final one never). @default 100 */
  readonly queueLimit?: number;
  /** The first retry's delay, milliseconds; each further one doubles it, to at most 5 minutes. @default 1000 */
  readonly backoffMs?: number;
}

interface Queued {
  wanted: WantedStatus;
  attempts: number;
}

const MAX_BACKOFF_MS = 5 * 60_000;
/** A refusal (a token the host rejects, a repository it does not know) is tried again no sooner: a rotated Secret mends it. */
const REFUSED_RETRY_MS = 60_000;

/**
 * Posts commit statuses one at a time, oldest commit first, from a queue
 * that keeps only the newest wanted state of each commit: a pending state
 * is replaced by what follows it, and never replaces a final one, which is
 * never dropped; past `queueLimit` the oldest pending state goes. A failed
 * post is retried with backoff (or after what the host asked: Retry-After,
 * a rate limit's reset), forever while the daemon runs, since a merge job
 * waits on it. `want` only queues: a reconcile never waits for the host.
 */
export class CommitStatusDelivery {
  readonly #options: CommitStatusDeliveryOptions;
  readonly #log: Logger;
  readonly #queue = new Map<string, Queued>();
  readonly #closing = new AbortController();
  #draining: Promise<void> | null = null;
  #cancelRetry: (() => void) | null = null;

  constructor(options: CommitStatusDeliveryOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'commit-status' });
  }

  /** Commits waiting for a post. */
  get pending(): number {
    return this.#queue.size;
  }

  want(commit: string, wanted: WantedStatus): void {
    if (this.#closing.signal.aborted) return;
    const queued = this.#queue.get(commit);
    if (queued !== undefined && isFinal(queued.wanted) && !isFinal(wanted)) return;
    if (queued === undefined) this.#queue.set(commit, { wanted, attempts: 0 });
    else {
      queued.wanted = wanted;
      queued.attempts = 0;
    }
    this.#dropOverLimit();
    if (this.#cancelRetry === null) this.#kick();
  }

  /** Lets what is queued go out for up to `graceMs` milliseconds, then abandons it. */
  async close(graceMs: number): Promise<void> {
    this.#cancelRetry?.();
    this.#cancelRetry = null;
    if (this.#queue.size > 0 && this.#draining === null) this.#kick();
    const draining = this.#draining;
    if (draining !== null) {
      let cancel = (): void => undefined;
      await Promise.race([
        draining,
        new Promise<void>((resolve) => (cancel = this.#options.clock.setTimeout(resolve, graceMs))),
      ]);
      cancel();
    }
    this.#closing.abort();
    await this.#draining;
  }

  #dropOverLimit(): void {
    const limit = this.#options.queueLimit ?? 100;
    let pendings = [...this.#queue].filter(([, queued]) => !isFinal(queued.wanted)).length;
    for (const [commit, queued] of this.#queue) {
      if (pendings <= limit) break;
      if (isFinal(queued.wanted)) continue;
      this.#queue.delete(commit);
      pendings -= 1;
      this.#log.warn({ commit, queued: limit }, 'commit status dropped: too many commits waiting');
      this.#options.onResult('dropped', commit, {});
    }
  }

  #kick(): void {
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = null;
    });
  }

  async #drain(): Promise<void> {
    const signal = this.#closing.signal;
    for (;;) {
      const next = this.#queue.entries().next();
      if (next.done === true || signal.aborted) return;
      const [commit, queued] = next.value;
      const wanted = queued.wanted;
      const resolved = await this.#resolve(commit, wanted, signal);
      const outcome =
        resolved.type === 'ok'
          ? await this.#options.client.postStatus(
              commit,
              this.#options.context,
              resolved.value,
              this.#options.targetUrl,
              signal,
            )
          : resolved;
      if (outcome.type === 'aborted') return;
      if (outcome.type === 'ok' && resolved.type === 'ok') {
        // A newer state wanted meanwhile stays queued, to go next.
        if (this.#queue.get(commit)?.wanted === wanted) this.#queue.delete(commit);
        this.#log.info(
          { commit, state: resolved.value.state, description: resolved.value.description },
          'commit status posted',
        );
        this.#options.onResult('posted', commit, { status: resolved.value });
        continue;
      }
      if (outcome.type === 'ok') continue;
      this.#retryLater(commit, queued, outcome);
      return;
    }
  }

  /** The status a wanted state stands for: a `through` asks the host whether the newer commit contains this one. */
  async #resolve(
    commit: string,
    wanted: WantedStatus,
    signal: AbortSignal,
  ): Promise<HostOutcome<CommitStatus>> {
    if (wanted.type === 'state') return { type: 'ok', value: wanted.status, waitMs: 0 };
    const contains = await this.#options.client.contains(commit, wanted.newer, signal);
    if (contains.type === 'retry' || contains.type === 'aborted') return contains;
    const through = contains.type === 'ok' && contains.value === true;
    if (contains.type === 'refused')
      this.#log.warn({ commit, newer: wanted.newer, reason: contains.message }, 'commit ancestry unknown');
    return {
      type: 'ok',
      value: through ? liveThroughStatus(wanted.newer) : supersededStatus(wanted.newer),
      waitMs: 0,
    };
  }

  #retryLater(
    commit: string,
    queued: Queued,
    outcome: Extract<HostOutcome<unknown>, { type: 'retry' | 'refused' }>,
  ): void {
    queued.attempts += 1;
    const backoff = Math.min(MAX_BACKOFF_MS, (this.#options.backoffMs ?? 1000) * 2 ** (queued.attempts - 1));
    const jittered = backoff * (0.5 + this.#options.random() / 2);
    const delayMs =
      outcome.type === 'refused' ? Math.max(REFUSED_RETRY_MS, jittered) : Math.max(jittered, outcome.waitMs);
    const result = outcome.type === 'refused' ? 'refused' : 'retried';
    this.#log[outcome.type === 'refused' ? 'error' : 'warn'](
      {
        commit: shortCommit(commit),
        attempts: queued.attempts,
        retryInMs: Math.round(delayMs),
        reason: outcome.message,
      },
      outcome.type === 'refused'
        ? 'commit status refused by the Git host'
        : 'commit status not posted; retrying',
    );
    this.#options.onResult(result, commit, { message: outcome.message });
    this.#cancelRetry = this.#options.clock.setTimeout(() => {
      this.#cancelRetry = null;
      this.#kick();
    }, delayMs);
  }
}

function isFinal(wanted: WantedStatus): boolean {
  return wanted.type === 'through' || isFinalState(wanted.status.state);
}
