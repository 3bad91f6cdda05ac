import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * The token of an `Authorization: Bearer …` header, or null when there is
 * none: a token is only ever taken from that header, never from a query
 * string, which proxies and access logs keep.
 */
export function bearerToken(header: string | undefined): string | null {
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1] ?? null;
}

/** Equal tokens, in time that depends on neither's content nor length: both are hashed first. */
export function sameToken(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** A JSON answer that no cache keeps (it may follow a token). */
export function sendJson(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(`${JSON.stringify(body)}\n`);
}
