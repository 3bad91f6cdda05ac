import { X509Certificate } from 'node:crypto';
import type { DesiredEntry } from './desired-state.js';
import { formatLocation } from './source-location.js';

export interface CaExpiry {
  readonly entry: DesiredEntry;
  /** Milliseconds since the epoch: the certificate's notAfter. */
  readonly notAfter: number;
}

/** The notAfter of each certificate_authorities entry whose PEM parses (validation reports the others). */
export function caExpiries(entries: readonly DesiredEntry[]): CaExpiry[] {
  const expiries: CaExpiry[] = [];
  for (const entry of entries) {
    const pem = entry.kind === 'certificate_authorities' ? entry.spec.ca_pem : undefined;
    if (typeof pem !== 'string') continue;
    try {
      expiries.push({ entry, notAfter: Date.parse(new X509Certificate(pem).validTo) });
    } catch {
      // not a certificate: the kind's own check says so, at its place
    }
  }
  return expiries;
}

/**
 * One warning per CA that expires (or has expired) within `windowMs` of
 * `now`: edges that name it start refusing client certificates then.
 */
export function caExpiryWarnings(entries: readonly DesiredEntry[], now: number, windowMs: number): string[] {
  return caExpiries(entries)
    .filter((ca) => ca.notAfter - now <= windowMs)
    .map((ca) => {
      const days = Math.floor(Math.abs(ca.notAfter - now) / 86_400_000);
      const when = ca.notAfter <= now ? `expired ${days} day(s) ago` : `expires in ${days} day(s)`;
      return `${formatLocation(ca.entry.location)}: certificate_authorities.${ca.entry.name}: the CA ${when} (${new Date(ca.notAfter).toISOString()}); replace its PEM before edges refuse client certificates`;
    });
}
