import {
  type CommitState,
  type CommitStatus,
  isFinalState,
  supersededStatus,
} from '../../git-host/commit-status-text.js';
import { RECONCILING } from './commit-verdict.js';

/**
 * What a commit's status should become:
 * - `state`: this status;
 * - `through`: the commit was replaced before it went live by `newer`, which
 *   went live: success "live through" when the host says `newer` contains
 *   it, else error "superseded by" (asked when it is posted).
 */
export type WantedStatus =
  | { readonly type: 'state'; readonly status: CommitStatus }
  | { readonly type: 'through'; readonly newer: string };

export interface Want {
  readonly commit: string;
  readonly wanted: WantedStatus;
}

/** Commits whose final state is kept to hold it (a success stays one): the last 1,000. */
const MAX_REMEMBERED = 1000;

/**
 * Which state each commit the daemon checks out should be given, from the
 * runs' starts and records: pending while it is reconciled; its verdict once
 * a run says it; and for a commit replaced by a newer one before it went
 * live, the newer one's outcome (live through it, or superseded by it). A
 * final state is never taken back by a pending one, and a success is never
 * taken back: a commit that went live did, whatever a later resync of it
 * finds (drift and skipped entries then are notifications, not its status).
 * Pure bookkeeping: the posts are `CommitStatusDelivery`'s.
 */
export class CommitStatusBook {
  #checkout: string | null = null;
  /** Commits given a pending state and no final one yet → the description last wanted. */
  readonly #open = new Map<string, string>();
  /** A commit replaced before it went live → the commit that replaced it (the newest, for a chain). */
  readonly #supersededBy = new Map<string, string>();
  /** Commits given a final state → it. */
  readonly #final = new Map<string, CommitState>();

  /** A run starts on the commit checked out (null outside a checkout). */
  reconciling(commit: string | null): Want[] {
    if (commit === null) return [];
    const previous = this.#checkout;
    this.#checkout = commit;
    if (previous !== null && previous !== commit && this.#open.has(previous)) {
      this.#supersededBy.set(previous, commit);
      for (const [older, newer] of this.#supersededBy)
        if (newer === previous) this.#supersededBy.set(older, commit);
    }
    if (this.#final.has(commit) || this.#open.has(commit)) return [];
    return this.#pending(commit, RECONCILING);
  }

  /** A run's record says `status` of `commit`. */
  recorded(commit: string, status: CommitStatus): Want[] {
    const final = this.#final.get(commit);
    if (final === 'success') return [];
    if (!isFinalState(status.state)) {
      if (final !== undefined || this.#open.get(commit) === status.description) return [];
      return this.#pending(commit, status);
    }
    this.#remember(commit, status.state);
    const wants: Want[] = [{ commit, wanted: { type: 'state', status } }];
    for (const [older, newer] of [...this.#supersededBy]) {
      if (newer !== commit) continue;
      this.#supersededBy.delete(older);
      this.#remember(older, status.state === 'success' ? 'success' : 'error');
      wants.push({
        commit: older,
        wanted:
          status.state === 'success'
            ? { type: 'through', newer: commit }
            : { type: 'state', status: supersededStatus(commit) },
      });
    }
    return wants;
  }

  #pending(commit: string, status: CommitStatus): Want[] {
    this.#open.set(commit, status.description);
    return [{ commit, wanted: { type: 'state', status } }];
  }

  #remember(commit: string, state: CommitState): void {
    this.#open.delete(commit);
    this.#final.delete(commit);
    this.#final.set(commit, state);
    if (this.#final.size > MAX_REMEMBERED) this.#final.delete(this.#final.keys().next().value as string);
  }
}
