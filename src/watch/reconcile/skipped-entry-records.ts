import { formatLocation } from '../../manifest/source-location.js';
import type { SkippedEntryRecord } from '../daemon-status.js';
import type { SkippedEntry } from './stuck-entries.js';

/**
 * The entries a plan made at `at` (RFC 3339) skipped, as `/status` shows
 * them: an entry skipped for the same reason as in the `previous` records
 * keeps its `since` and counts one more reconcile, so that `/status` says how
 * long each has been stuck.
 */
export function skippedEntryRecords(
  previous: readonly SkippedEntryRecord[],
  skipped: readonly SkippedEntry[],
  at: string,
): readonly SkippedEntryRecord[] {
  const before = new Map(previous.map((record) => [keyOf(record), record]));
  return skipped.map((entry) => {
    const earlier = before.get(keyOf(entry));
    return {
      kind: entry.kind,
      name: entry.name,
      reason: entry.reason,
      message: entry.message,
      file: entry.source?.file ?? null,
      line: entry.source?.line ?? null,
      column: entry.source?.column ?? null,
      waitsFor: entry.waitsFor ?? null,
      since: earlier?.since ?? at,
      reconciles: (earlier?.reconciles ?? 0) + 1,
    };
  });
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
