import type { EdgeApi } from '../api/edge-api.js';
import type { Result } from '../errors.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveState } from '../kinds/live-state.js';
import { readLiveState } from '../kinds/read-live-state.js';
import { KINDS } from '../kinds/registry.js';
import type { DesiredState } from '../manifest/desired-state.js';
import { type LoadOptions, loadDesiredState } from '../manifest/load-desired-state.js';
import type { ManifestError } from '../manifest/manifest-error.js';
import type { Plan } from '../plan/plan.js';
import { planChanges } from '../plan/plan-changes.js';
import type { PlanOptions } from '../plan/planner-options.js';
import { withDesiredStrings } from './share-desired-strings.js';

export interface PreparedPlan {
  readonly desired: DesiredState;
  readonly live: LiveState;
  readonly plan: Plan;
}

export interface PreparePlanOptions {
  readonly load: LoadOptions;
  readonly plan: PlanOptions;
  readonly signal?: AbortSignal;
  /**
   * Called once the manifests are loaded and valid, before the account is
   * read: a command says what it read then, and starts showing the read.
   * `readsById` is how many GETs the read makes besides its listings.
   */
  readonly onLoaded?: (desired: DesiredState, read: { readonly readsById: number }) => void;
}

/**
 * plan-session/ sits between the commands (cli/, watch/) and the pure
 * planner: it does the I/O a plan needs (the manifests from disk, the live
 * account over HTTP) but sends no write, so it is neither plan/ (pure) nor
 * apply/ (the executor); `plan` never imports the executor through it.
 *
 * The I/O around the pure planner, shared by `plan`, `apply` and `watch`:
 * load the manifests (no network when they are invalid), read the live
 * account, plan. Manifest errors come back as data so each caller reports
 * them its own way; everything else throws.
 */
export async function preparePlan(
  paths: readonly string[],
  api: EdgeApi,
  options: PreparePlanOptions,
): Promise<Result<PreparedPlan, ManifestError>> {
  const loaded = await loadDesiredState(paths, options.load);
  if (!loaded.ok) return loaded;
  const desired = loaded.value;
  options.onLoaded?.(desired, { readsById: readsById(desired, options.plan.kinds ?? KINDS) });
  return { ok: true, value: { desired, ...(await readAndPlan(desired, api, options)) } };
}

/**
 * Reads the live account that `desired` needs and plans against it. The
 * daemon plans from its live-state cache instead (src/watch/).
 */
export async function readAndPlan(
  desired: DesiredState,
  api: EdgeApi,
  options: Pick<PreparePlanOptions, 'plan' | 'signal'>,
): Promise<{ readonly live: LiveState; readonly plan: Plan }> {
  const kinds = options.plan.kinds ?? KINDS;
  const live = await readLiveState(api, {
    kinds,
    idsByKind: moduleOnlyIds(desired, kinds),
    keep: withDesiredStrings(desired, options.plan.owner),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  options.signal?.throwIfAborted();
  return { live, plan: planChanges(desired, live, options.plan) };
}

/** The GETs a read of the account makes besides its listings: one per module of each module-only edge named. */
function readsById(desired: DesiredState, kinds: readonly Kind[]): number {
  const ids = moduleOnlyIds(desired, kinds);
  return kinds.reduce((sum, kind) => sum + new Set(ids[kind.name] ?? []).size * kind.modules.length, 0);
}

/** Module-only kinds are read by GET for the IDs the manifests name; other kinds are listed whole. */
function moduleOnlyIds(
  desired: DesiredState,
  kinds: readonly Kind[],
): Partial<Record<KindName, readonly string[]>> {
  const ids: Partial<Record<KindName, string[]>> = {};
  for (const kind of kinds) {
    if (kind.ownership !== 'modules-only') continue;
    ids[kind.name] = desired.entries.flatMap((entry) =>
      entry.kind === kind.name && entry.id ? [entry.id] : [],
    );
  }
  return ids;
}
