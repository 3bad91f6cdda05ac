import { setFlagsFromString } from 'node:v8';
import type { RuntimeV8Flags } from '../manifest/parse-in-worker.js';

/**
 * How much V8 lets the old generation grow past what its last full
 * collection kept before it collects again, in percent (V8's default lets it
 * grow up to 4x).
 */
const HEAP_GROWING_PERCENT = 30;

let limited = false;

/**
 * Limits the heap's growth for the rest of the process: `plan`, `apply`,
 * `show` and `watch` call it as they start, the bench's child too, so that it
 * measures what the CLI does. A decision of the process, so the commands
 * make it, not the plan session: what they load, they load with the flags
 * this returns (LoadOptions.parsing's `runtimeFlags`).
 *
 * - V8 collects the old generation once it has grown 30% past its live size.
 *   A plan of 100,000 entries holds about 120 MB (the entries and the live
 *   objects) while the live read and the planner make garbage much faster,
 *   and with V8's default growth the heap reached about twice its live size
 *   before the next full collection: that was the process's peak RSS, what a
 *   container's memory limit has to cover.
 * - The young generation stops growing: V8 doubles it after each scavenge
 *   that kept more than its size (what a load building entries does all the
 *   time), up to 32 MB on Node 20 and 64 MB on Node 26, committed for the rest
 *   of the run. On Node 20 it keeps the size it has when the limit is set.
 *   Node 26's V8 also resizes it by heuristics this factor does not bound
 *   (test/cli/heap-growth.test.ts), yet limited from the start it
 *   peaks far lower there too.
 *
 * From the start, at any size: limited only from 2 MB of manifests on, 10,000
 * rules peaked at 126-135 MB on Node 20 and 189-227 MB on Node 26, and
 * limited 88-94 and 116-150 MB, in the same time within the noise (a plan of
 * 10,000 creates or no-ops, two runs each, builds interleaved; 2026-11-25).
 * The extra collections once cost about 14% of the CPU at 10,000 entries,
 * before the load's workers and the young generation were limited as they are
 * now. Only flags V8 reads at each collection work once the process runs (the
 * young generation's maximum, for one, is fixed when the isolate starts).
 * See docs/performance.md (CPU and memory).
 */
export function limitHeapGrowth(): RuntimeV8Flags {
  if (!limited) {
    limited = true;
    setLimitFlags();
  }
  return heapGrowthFlags;
}

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

function setLimitFlags(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // 1: each growth step multiplies the young generation by 1, so it never grows.
  setFlagsFromString('--semi-space-growth-factor=1');
}
