import type { Logger } from 'pino';
import type { EdgeApi } from '../../api/edge-api.js';
import type { Kind } from '../../kinds/kind.js';
import type { KindName } from '../../kinds/kind-name.js';
import type { LiveState } from '../../kinds/live-state.js';
import type { DesiredState } from '../../manifest/desired-state.js';
import type { Plan } from '../../plan/plan.js';
import { planChanges } from '../../plan/plan-changes.js';
import type { PlanOptions } from '../../plan/planner-options.js';
import type { NamedIdsMemo } from '../../plan-session/named-ids-memo.js';
import type { LiveCacheWriter, NamedModuleOnly } from '../live-cache-writer.js';
import type { LiveCacheView } from '../live-state-cache.js';
import type { ReadShare } from '../read-share.js';
import { withPurpose } from '../request-purpose.js';
import { planFromCache } from './plan-from-cache.js';

/** What the plan stage reads and plans with, the same for every run. */
export interface PlanSource {
  readonly kinds: readonly Kind[];
  /** Planned in the `daemon` safety context: `force` and `allowEmpty` are ignored, a refusal is never applied. */
  readonly plan: PlanOptions;
  readonly api: EdgeApi;
  /** The live state every run plans from; filled by full reads, kept current by targeted reads and writes. */
  readonly cache: LiveCacheView;
  /** The cache's one writer: the reads a run asks for and its writes' answers go through it. */
  readonly writer: LiveCacheWriter;
  /** A run is foreground work: background full reads wait while it sends requests. */
  readonly readShare: ReadShare;
  /** The IP policies and endpoint configurations the manifests name that were found, read again only after a full read. */
  readonly namedIds: NamedIdsMemo;
  /** A forced run (SIGHUP, POST /reconcile) reads the whole account through it before planning. */
  readonly forcedReads: { read(named: NamedModuleOnly, signal: AbortSignal): Promise<void> };
}

/** What the plan stage returns. */
export interface PlannedRun {
  readonly live: LiveState;
  readonly plan: Plan;
  /** Objects read by ID before the plan. */
  readonly targetedReads: number;
}

/**
 * The plan stage: the plan of `desired` against the cache, reading first
 * what it touches (plan-from-cache.ts), and on a forced run the whole
 * account. Sends reads only, as foreground work.
 */
export async function planStage(
  source: PlanSource,
  desired: DesiredState,
  forced: boolean,
  signal: AbortSignal,
  log: Logger,
): Promise<PlannedRun> {
  const named = namedModuleOnlyIds(source.kinds, desired);
  // Foreground: background reads wait, and the forced read takes all the budget writes leave free.
  if (forced) await source.readShare.inForeground(() => source.forcedReads.read(named, signal));
  const planOptions: PlanOptions = { ...source.plan, context: 'daemon', kinds: source.kinds };
  // The IP policies and endpoint configurations the manifests name, checked as `plan` checks them.
  if (source.cache.kindsToRead().length > 0) source.namedIds.forget();
  const missingNamedIds = await source.readShare.inForeground(() =>
    withPurpose('targeted-read', () => source.namedIds.missing(source.api, desired, source.kinds, signal)),
  );
  const planned = await planFromCache({
    plan: (live) => planChanges(desired, { ...live, missingNamedIds }, planOptions),
    named,
    cache: source.cache,
    writer: source.writer,
    inForeground: (work) => source.readShare.inForeground(work),
    signal,
  });
  if (planned.fullRead !== null) {
    const { kinds, stats } = planned.fullRead;
    log.info({ kinds, requests: stats.requests, durationMs: Math.round(stats.durationMs) }, 'read in full');
  }
  if (planned.targetedReads > 0) log.debug({ objects: planned.targetedReads }, 'read by ID before planning');
  return { live: planned.live, plan: planned.plan, targetedReads: planned.targetedReads };
}

/** Module-only kinds are read by GET for the IDs the manifests name; other kinds are listed whole. */
export function namedModuleOnlyIds(kinds: readonly Kind[], desired: DesiredState): Map<KindName, string[]> {
  const ids = new Map<KindName, string[]>();
  for (const kind of kinds) {
    if (kind.ownership !== 'modules-only') continue;
    ids.set(
      kind.name,
      desired.entries.flatMap((entry) => (entry.kind === kind.name && entry.id ? [entry.id] : [])),
    );
  }
  return ids;
}
