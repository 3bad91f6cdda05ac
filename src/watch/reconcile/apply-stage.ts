import type { Logger } from 'pino';
import type { ApplyResult } from '../../apply/apply-result.js';
import { executePlan, type ProgressEvent } from '../../apply/execute-plan.js';
import type { Kind } from '../../kinds/kind.js';
import type { KindName } from '../../kinds/kind-name.js';
import type { Plan } from '../../plan/plan.js';
import type { CacheSurprise } from '../cache-writing-api.js';
import type { DaemonClock } from '../daemon-clock.js';
import type { ApplyRecord } from '../daemon-status.js';
import { HeldWritesApi } from '../held-writes-api.js';
import type { LiveCacheWriter, NamedModuleOnly } from '../live-cache-writer.js';
import type { LiveCacheView } from '../live-state-cache.js';
import type { ReadShare } from '../read-share.js';
import { withPurpose } from '../request-purpose.js';

/** What the apply stage writes through, the same for every run. */
export interface ApplyTarget {
  readonly kinds: readonly Kind[];
  readonly cache: LiveCacheView;
  /** The cache's one writer: every write's answer goes into the cache through it. */
  readonly writer: LiveCacheWriter;
  readonly readShare: ReadShare;
  readonly clock: DaemonClock;
  /** Actions in flight at once. */
  readonly concurrency: number;
  /** Whether the daemon is suspended now: a write asked while it is, is not sent. */
  readonly writesHeld: () => boolean;
}

/** What the apply stage returns. */
export interface AppliedRun {
  readonly result: ApplyResult;
  readonly record: ApplyRecord;
  /** Clock milliseconds of the first write sent; null when none was. */
  readonly firstWriteAt: number | null;
  /** Kinds a write met what the cache did not hold (a 404, a unique key taken): each is read in full before its next plan. */
  readonly surprises: readonly KindName[];
}

/**
 * The apply stage: the plan's actions sent through the executor, every
 * answer taken into the cache, then the objects module writes changed read
 * back, so the cache is whole again before the next change (and an idle
 * daemon spends nothing on them later).
 */
export async function applyStage(
  target: ApplyTarget,
  plan: Plan,
  named: NamedModuleOnly,
  signal: AbortSignal,
  logs: { readonly run: Logger; readonly reconciler: Logger },
): Promise<AppliedRun> {
  const log = logs.reconciler;
  const kindByName = new Map(target.kinds.map((kind) => [kind.name, kind]));
  const surprises: KindName[] = [];
  let firstWriteAt: number | null = null;
  const onSurprise = (surprise: CacheSurprise): void => {
    surprises.push(surprise.kind);
    log.warn(
      surprise,
      'a write met what the cache did not hold; that kind is read in full before it is planned again',
    );
  };
  const result = await target.readShare.inForeground(() =>
    withPurpose('write', () =>
      executePlan(plan, {
        api: new HeldWritesApi(target.writer.writesApi(onSurprise), target.writesHeld),
        signal,
        // The executor names its own component; it gets the run's logger, not the reconciler's.
        logger: logs.run,
        concurrency: target.concurrency,
        kindByName: (name) => {
          const kind = kindByName.get(name);
          // A plan names only kinds of the registry it was made with.
          if (kind === undefined)
            throw new Error(`no kind named ${JSON.stringify(name)} in the daemon's registry`);
          return kind;
        },
        onProgress: (event) => {
          if (event.type === 'started') firstWriteAt ??= target.clock.now();
          logProgress(log, event);
        },
      }),
    ),
  );
  await readBackStale(target, named, signal);
  return { result, record: toApplyRecord(result), firstWriteAt, surprises };
}

/** Module writes answer with the module, not the object: the objects they changed are read back. */
async function readBackStale(
  target: ApplyTarget,
  named: NamedModuleOnly,
  signal: AbortSignal,
): Promise<void> {
  const stale = target.cache.staleIds();
  if (stale.size === 0 || signal.aborted) return;
  // A failed read-back leaves them stale: the next run reads them before it plans.
  await target.readShare.inForeground(() =>
    withPurpose('targeted-read', () => target.writer.readTargets(stale, named, signal)),
  );
}

function logProgress(log: Logger, event: ProgressEvent): void {
  if (event.type !== 'finished') return;
  const { key, outcome, id, error, reason } = event.result;
  const fields = {
    action: key,
    op: event.action.op,
    kind: event.action.kind,
    name: event.action.name,
    outcome,
    id,
  };
  if (outcome === 'done') log.info(fields, 'action finished');
  else log.warn({ ...fields, error, reason }, 'action not applied');
}

function toApplyRecord(result: ApplyResult): ApplyRecord {
  return {
    done: result.done,
    failed: result.failed,
    skipped: result.skipped,
    notStarted: result.notStarted,
    interrupted: result.interrupted,
    failures: result.actions.flatMap((action) =>
      action.error ? [{ action: action.key, message: action.error.message }] : [],
    ),
  };
}
