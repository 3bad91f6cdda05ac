import { AsyncLocalStorage } from 'node:async_hooks';
import type { HttpMethod } from '../api/edge-api.js';

/**
 * Why the daemon spends a request of the budget: a full read (startup, the
 * background resync, the fallback after a surprise), a targeted read (what a
 * change touches, checked before it is written), or a write (with the reads
 * the executor makes to settle a write's outcome).
 */
export const REQUEST_PURPOSES = ['full-read', 'targeted-read', 'write'] as const;
export type RequestPurpose = (typeof REQUEST_PURPOSES)[number];

const current = new AsyncLocalStorage<RequestPurpose>();

/**
 * Runs `work` with every request it makes (however deep, through the
 * client's retries) counted under `purpose`. The client's request hook reads
 * it back with `purposeOf`, so no call in between needs to pass it along.
 */
export function withPurpose<T>(purpose: RequestPurpose, work: () => Promise<T>): Promise<T> {
  return current.run(purpose, work);
}

/** The purpose of a request being made now: any method but GET is a write; a GET outside `withPurpose` is a targeted read. */
export function purposeOf(method: HttpMethod): RequestPurpose {
  if (method !== 'GET') return 'write';
  return current.getStore() ?? 'targeted-read';
}
