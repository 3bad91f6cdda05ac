import type { Plan } from '../../plan/plan.js';
import { planWithout } from './plan-without.js';

/**
 * The default `--settle`: how long the manifests must read the same before
 * the daemon sends a DELETE they ask for. Editors save atomically or in
 * milliseconds, and cp, rsync and tar write a file without stopping; what
 * pauses mid-file is a copy over a slow link (scp, kubectl cp) or a checkout
 * of many files onto network storage, for seconds. Ten seconds covers those
 * with room, twenty times the default debounce, while a delete still lands
 * within seconds of its save (a create or an update at once). A writer that
 * can pause longer must write atomically (a rename, or a symlink swap as
 * git-sync and ConfigMaps do), as every writer should.
 */
export const DEFAULT_SETTLE_MS = 10_000;

/** Where the desired state stands against the settle period, at one load. */
export interface Settling {
  /** The desired state has read the same, valid, over a whole settle period. */
  readonly settled: boolean;
  /** Clock milliseconds of the first load that read it so; null while the manifests are invalid. */
  readonly since: number | null;
  /** Clock milliseconds from which it counts as settled; null while the manifests are invalid. */
  readonly settlesAt: number | null;
}

/** What the last load said of the desired state: its hash (null when it did not load) and since when it read so. */
export interface LastDesired {
  readonly hash: string | null;
  /** Clock milliseconds of the first load that read it so; null while the manifests are invalid. */
  readonly since: number | null;
}

/**
 * Whether the manifests have stopped changing: a file rewritten in two
 * bursts, with a pause longer than `--debounce` between them, loads as a
 * valid but partial desired state, and a plan made from it deletes what the
 * missing half holds. Creates and updates of such a state go at once (the
 * full file soon puts back anything they change); a DELETE waits until the
 * desired state has read the same twice, a settle period apart, with no
 * invalid read between (an invalid file is a file being written).
 *
 * The settle stage of a reconcile: `last` is what the previous load said,
 * `hash` what this load read (null when the manifests did not load), at
 * `now`; `periodMs` is the settle period, 0 letting every delete go at once.
 */
export function settleDesired(
  last: LastDesired,
  hash: string | null,
  now: number,
  periodMs: number,
): Settling {
  if (hash === null) return { settled: periodMs === 0, since: null, settlesAt: null };
  const since = hash === last.hash && last.since !== null ? last.since : now;
  const settlesAt = since + periodMs;
  return { settled: now >= settlesAt, since, settlesAt };
}

export interface HeldDeletes {
  /** The plan without its DELETE requests and what waits for them. */
  readonly plan: Plan;
  /** Addresses of the changes that lost an action, in the plan's order. */
  readonly held: readonly string[];
}

/**
 * The plan without its DELETE requests (prunes, the old half of a replace,
 * module removals) and the actions that wait for them, for a desired state
 * that has not settled. Creates and updates that wait for nothing deleted
 * still go; what remains is ordered as in the whole plan (plan-without.ts).
 */
export function holdDeletes(plan: Plan): HeldDeletes {
  // A create is a POST: its request, made when read (EntryCreate), is not made to tell.
  const { plan: rest, withheld } = planWithout(
    plan,
    (action) => action.op !== 'create' && action.request.method === 'DELETE',
    { wholeEntries: false },
  );
  return { plan: rest, held: [...new Set(withheld.map(({ action }) => action.change))] };
}
