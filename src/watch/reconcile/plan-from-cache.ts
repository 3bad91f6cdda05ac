import type { KindName } from '../../kinds/kind-name.js';
import type { LiveState, LiveStateStats } from '../../kinds/live-state.js';
import type { Plan } from '../../plan/plan.js';
import type { LiveCacheWriter, NamedModuleOnly } from '../live-cache-writer.js';
import type { LiveCacheView } from '../live-state-cache.js';
import { withPurpose } from '../request-purpose.js';
import { targetsToRead } from './targeted-read.js';

/** Rounds of targeted reads before a plan: a read may show an object the draft did not touch (a taken unique key). */
const TARGETED_READ_ROUNDS = 3;

export interface PlanFromCacheOptions {
  /** The planner, bound to the desired state and the plan's options. */
  readonly plan: (live: LiveState) => Plan;
  readonly named: NamedModuleOnly;
  readonly cache: LiveCacheView;
  readonly writer: LiveCacheWriter;
  /** Runs requests a reconcile waits for as foreground work (background reads wait meanwhile). */
  readonly inForeground: <T>(work: () => Promise<T>) => Promise<T>;
  readonly signal: AbortSignal;
}

export interface PlanFromCache {
  readonly live: LiveState;
  readonly plan: Plan;
  /** Kinds read in full first (the cache did not hold them), and what that read took; null when none was. */
  readonly fullRead: { readonly kinds: readonly KindName[]; readonly stats: LiveStateStats } | null;
  /** Objects read by ID before the plan. */
  readonly targetedReads: number;
}

/**
 * The plan of a reconcile, from the cache: kinds the cache does not hold
 * are read in full first (startup, or after a surprise dropped them); then
 * a draft plan names what it would touch, which is read by ID, and the plan
 * is made again only if those reads found something the cache did not hold.
 * Every object the plan writes or deletes was read just before, and the
 * planner sees a complete snapshot, so pruning, the safety policy and the
 * access ordering work exactly as after a full read. The reads go through
 * the cache's writer; this only reads the cache.
 */
export async function planFromCache(options: PlanFromCacheOptions): Promise<PlanFromCache> {
  const { cache, writer, named, signal } = options;
  const readInFull = cache.kindsToRead();
  const fullRead =
    readInFull.length === 0
      ? null
      : {
          kinds: readInFull,
          stats: await options.inForeground(() =>
            withPurpose('full-read', () => writer.readInFull(readInFull, named, signal)),
          ),
        };
  let live = cache.snapshot();
  let plan = options.plan(live);
  const read = new Set<string>();
  for (let round = 0; round < TARGETED_READ_ROUNDS; round += 1) {
    // Kinds this reconcile has just read in full need no second look.
    const targets = new Map(
      [...targetsToRead(plan, named, cache)]
        .filter(([kind]) => !readInFull.includes(kind))
        .map(([kind, ids]) => [kind, ids.filter((id) => !read.has(id))] as const)
        .filter(([, ids]) => ids.length > 0),
    );
    if (targets.size === 0) break;
    for (const ids of targets.values()) for (const id of ids) read.add(id);
    const before = fingerprints(cache, targets);
    await options.inForeground(() =>
      withPurpose('targeted-read', () => writer.readTargets(targets, named, signal)),
    );
    signal.throwIfAborted();
    // The reads found what the cache held: the draft stands, and planning again would only cost CPU.
    if (fingerprints(cache, targets) === before) break;
    live = cache.snapshot();
    plan = options.plan(live);
  }
  return { live, plan, fullRead, targetedReads: read.size };
}

/** What the cache holds for `targets`, as one comparable string (absent objects included). */
function fingerprints(cache: LiveCacheView, targets: ReadonlyMap<KindName, readonly string[]>): string {
  const parts: string[] = [];
  for (const [kind, ids] of targets) {
    for (const id of ids)
      parts.push(
        `${id}:${cache.knows(kind, id) ? (cache.get(kind, id)?.fingerprint ?? 'missing') : 'unknown'}`,
      );
  }
  return parts.join(',');
}
