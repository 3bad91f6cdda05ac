import type { Kind } from '../kinds/kind.js';
import type { DesiredEntry } from './desired-state.js';
import { formatLocation } from './source-location.js';

const DAY_MS = 86_400_000;

/**
 * One warning per entry that expires (or has expired) within `windowMs` of
 * `now`, for the kinds of `kinds` (the registry in use) with an `expiry`
 * hook: a CA's certificate, which edges that name it stop accepting then.
 * An entry whose date cannot be read gets none: its kind's own check
 * reports that, at its place.
 */
export function expiryWarnings(
  entries: readonly DesiredEntry[],
  kinds: readonly Kind[],
  now: number,
  windowMs: number,
): string[] {
  const expiring = new Map(
    kinds.flatMap((kind) => (kind.expiry === undefined ? [] : [[kind.name, kind.expiry]])),
  );
  const warnings: string[] = [];
  for (const entry of entries) {
    const expiry = expiring.get(entry.kind);
    const notAfter = expiry?.notAfter(entry.spec);
    if (expiry === undefined || notAfter === undefined || notAfter - now > windowMs) continue;
    const days = Math.floor(Math.abs(notAfter - now) / DAY_MS);
    const when = notAfter <= now ? `expired ${days} day(s) ago` : `expires in ${days} day(s)`;
    warnings.push(
      `${formatLocation(entry.location)}: ${entry.kind}.${entry.name}: ${expiry.subject} ${when} (${new Date(notAfter).toISOString()}); ${expiry.advice}`,
    );
  }
  return warnings;
}
