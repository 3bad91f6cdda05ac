import type { ReconcileRecord } from './reconcile/reconcile-record.js';

/**
 * The daemon's current record: replaced whole once per run, when the run has
 * returned it, and read by everything that reports (`/status`, the page,
 * `/readyz`, the background reads). A reader holds one record at a time,
 * never a run's half-made state.
 */
export class CurrentRecord {
  #record: ReconcileRecord;

  constructor(first: ReconcileRecord) {
    this.#record = first;
  }

  get record(): ReconcileRecord {
    return this.#record;
  }

  /** Makes `next` the current record; returns the one it replaces. */
  replace(next: ReconcileRecord): ReconcileRecord {
    const previous = this.#record;
    this.#record = next;
    return previous;
  }
}
