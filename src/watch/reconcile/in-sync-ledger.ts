import type { DesiredEntry } from '../../manifest/desired-state.js';

/**
 * Which desired entries the account has matched, and from which run on:
 * the history that tells drift (the account moved under an unchanged entry)
 * from pending (Git moved). A load gives the same entry object for a file
 * whose bytes did not change (ManifestMemo), and a new object for an entry
 * that changed, so "unchanged since the account matched it" is "this object
 * was matched". Keyed weakly by the entries themselves: nothing is copied
 * per run, and an entry no load holds any more is forgotten with it.
 *
 * Append-only, and read through `asOf(run)`: what a later run marks never
 * changes what a record of an earlier run says, so every record stays what
 * it was when it was made. An entry rebuilt with the same content (a file
 * whose references a resync read again) counts as unmatched until a run
 * matches it, which the next plan without a change for it does.
 */
export class InSyncLedger {
  readonly #matchedAt = new WeakMap<DesiredEntry, number>();

  /** Run `run` left the account matching each of `entries`. */
  mark(entries: Iterable<DesiredEntry>, run: number): void {
    for (const entry of entries) if (!this.#matchedAt.has(entry)) this.#matchedAt.set(entry, run);
  }

  /** Whether an entry had been matched by the end of run `run`. */
  asOf(run: number): (entry: DesiredEntry) => boolean {
    return (entry) => {
      const at = this.#matchedAt.get(entry);
      return at !== undefined && at <= run;
    };
  }
}
