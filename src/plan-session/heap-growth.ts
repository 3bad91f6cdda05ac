import { setFlagsFromString } from 'node:v8';
import { POOL_START_BYTES, type RuntimeV8Flags } from '../manifest/parse-in-worker.js';

/**
 * Manifest bytes from which the heap's growth is limited while the load
 * still reads: where the load starts parsing workers. A worker's isolate
 * grows its own young and old generations under the same process-wide
 * flags, so below the limit 15,000 to 50,000 rules peaked higher (138 to
 * 200 MB) than 100,000 under it (2026-11-25, `drive.mjs` runs in
 * docs/performance.md); 10,000 rules (1.5 MB) stay below it and pay none of
 * its CPU.
 */
export const LARGE_ACCOUNT_BYTES = POOL_START_BYTES;

/**
 * Entries from which the heap's growth is limited once loaded: what
 * LARGE_ACCOUNT_BYTES hold of the smallest entries (about 147 bytes each in
 * the bench's files), for manifests written more tightly than that.
 */
export const LARGE_ACCOUNT_ENTRIES = 14_000;

/**
 * How much V8 lets the old generation grow past what its last full
 * collection kept before it collects again, in percent (V8's default lets it
 * grow up to 4x).
 */
const HEAP_GROWING_PERCENT = 30;

let limited = false;

/**
 * Limits the heap's growth from the first load of a large account on
 * (`plan`, `apply`, `watch` call this with the number of entries they loaded,
 * and the one below while they load; the bench's child too, so that it
 * measures what the CLI does):
 *
 * - V8 collects the old generation once it has grown 30% past its live size.
 *   A plan of 100,000 entries holds about 120 MB (the entries and the live
 *   objects) while the live read and the planner make garbage much faster,
 *   and with V8's default growth the heap reached about twice its live size
 *   before the next full collection: that was the process's peak RSS, what a
 *   container's memory limit has to cover. Limited, the peak at 100,000 is
 *   10 to 25 MB lower (no-ops and creates).
 * - The young generation stops growing: V8 doubles it after each scavenge
 *   that kept more than its size (what a load building 100,000 entries does
 *   all the time), up to 32 MB on Node 20 and 64 MB on Node 26, committed
 *   for the rest of the run. On Node 20 it keeps the size it has when the
 *   limit is set. Node 26's V8 also resizes it by heuristics this factor
 *   does not bound: after the same allocations it ended at 2 to 26 MB, with
 *   or without parsing workers (test/plan-session/heap-growth.test.ts).
 *
 * The extra collections cost CPU, about 14% of the whole at 10,000 entries for
 * 8 MB, hence the threshold (see LARGE_ACCOUNT_BYTES). Only flags V8 reads at each collection work
 * once the process runs (the young generation's maximum, for one, is fixed
 * when the isolate starts). See docs/performance.md (CPU and memory).
 */
export function limitHeapGrowthFor(entries: number): void {
  if (entries >= LARGE_ACCOUNT_ENTRIES) limitHeapGrowth();
}

/**
 * The same, from the manifest bytes a load expects to read (its
 * `onExpectedBytes`, from its first file on): the load of a large account is
 * limited from its start, not only from its end. The limit counts from the
 * next full collection: set once half the files were read, it came after the
 * heap had grown 4x once more (27 -> 117 MB at 100,000 rules), and the
 * load's peak was no lower in one run of three.
 */
export function limitHeapGrowthForBytes(bytes: number): void {
  if (bytes >= LARGE_ACCOUNT_BYTES) limitHeapGrowth();
}

/**
 * The same, from the size of a saved plan `show` or `apply --plan` is about
 * to read: from about as many changes as LARGE_ACCOUNT_ENTRIES (a change and
 * its action take ~2.1 KB of the file `plan --out` writes for a rule).
 */
export function limitHeapGrowthForSavedPlanBytes(bytes: number): void {
  if (bytes >= LARGE_SAVED_PLAN_BYTES) limitHeapGrowth();
}

const LARGE_SAVED_PLAN_BYTES = LARGE_ACCOUNT_ENTRIES * 2_100;

/**
 * The limit as a load's parsing workers see it (LoadOptions.parsing's
 * `runtimeFlags`): Node 20's V8 puts the young generation's growth factor
 * back to its default whenever it starts an isolate, a parsing worker's too,
 * so the load sets it again once each worker is up.
 */
export const heapGrowthFlags: RuntimeV8Flags = {
  set: () => limited,
  reapply: () => {
    if (limited) setLimitFlags();
  },
};

/**
 * The limit whatever the account's size: `watch` sets it when it starts. A
 * daemon's CPU is idle between reconciles, so the extra collections that
 * keep the threshold above for one-shot commands cost it nothing it would
 * use, and its container's memory limit is sized from its peak.
 */
export function limitHeapGrowth(): void {
  if (limited) return;
  limited = true;
  setLimitFlags();
}

function setLimitFlags(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // 1: each growth step multiplies the young generation by 1, so it never grows.
  setFlagsFromString('--semi-space-growth-factor=1');
}
