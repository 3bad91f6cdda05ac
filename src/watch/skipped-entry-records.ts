import { formatLocation } from '../manifest/source-location.js';
import type { SkippedEntryRecord } from './daemon-status.js';
import type { SkippedEntry } from './stuck-entries.js';

/**
 * The entries each plan skipped, kept from one reconcile to the next so
 * that `/status` says how long each has been stuck: an entry skipped for the
 * same reason again keeps its `since` and counts one more reconcile.
 */
export class SkippedEntryRecords {
  #records: readonly SkippedEntryRecord[] = [];

  get records(): readonly SkippedEntryRecord[] {
    return this.#records;
  }

  /** The entries the plan made at `at` (RFC 3339) skipped. */
  record(skipped: readonly SkippedEntry[], at: string): readonly SkippedEntryRecord[] {
    const before = new Map(this.#records.map((record) => [keyOf(record), record]));
    this.#records = skipped.map((entry) => {
      const previous = before.get(keyOf(entry));
      return {
        kind: entry.kind,
        name: entry.name,
        reason: entry.reason,
        message: entry.message,
        file: entry.source?.file ?? null,
        line: entry.source?.line ?? null,
        column: entry.source?.column ?? null,
        waitsFor: entry.waitsFor ?? null,
        since: previous?.since ?? at,
        reconciles: (previous?.reconciles ?? 0) + 1,
      };
    });
    return this.#records;
  }
}

/** One line naming each skipped entry and its reason, at most `limit` of them, for `/readyz`. */
export function describeSkipped(records: readonly SkippedEntryRecord[], limit = 3): string {
  const named = records
    .slice(0, limit)
    .map((record) => `${record.kind}.${record.name} (${record.reason})`)
    .join(', ');
  const more = records.length > limit ? ` and ${records.length - limit} more` : '';
  return `${records.length} entr${records.length === 1 ? 'y' : 'ies'} skipped: ${named}${more}; see /status`;
}

/** Where a skipped entry's problem is, for logs: `file:line:column`, or null. */
export function placeOf(entry: SkippedEntry): string | null {
  return entry.source === undefined ? null : formatLocation(entry.source);
}

function keyOf(entry: { readonly kind: string; readonly name: string; readonly reason: string }): string {
  return `${entry.kind}\u0000${entry.name}\u0000${entry.reason}`;
}
