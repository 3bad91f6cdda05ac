import type { EdgeApi } from '../api/edge-api.js';
import type { Result } from '../errors.js';
import type { Kind } from '../kinds/kind.js';
import { KindError } from '../kinds/kind-error.js';
import type { KindName } from '../kinds/kind-name.js';
import type { LiveState } from '../kinds/live-state.js';
import { readLiveState } from '../kinds/read-live-state.js';
import type { DesiredState } from '../manifest/desired-state.js';
import { type LoadOptions, loadDesiredState } from '../manifest/load-desired-state.js';
import type { ManifestError } from '../manifest/manifest-error.js';
import { formatLocation } from '../manifest/source-location.js';
import type { Plan } from '../plan/plan.js';
import { planChanges } from '../plan/plan-changes.js';
import type { PlanOptions } from '../plan/planner-options.js';
import { namedIdsToRead, readNamedIds } from './read-named-ids.js';
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
  options.onLoaded?.(desired, { readsById: readsById(desired, options.plan.kinds) });
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
  const { kinds } = options.plan;
  // The named IDs are read beside the listings, within the same budget.
  let listed: LiveState;
  let missingNamedIds: string[];
  try {
    [listed, missingNamedIds] = await Promise.all([
      readLiveState(api, {
        kinds,
        idsByKind: moduleOnlyIds(desired, kinds),
        keep: withDesiredStrings(desired, options.plan.owner),
        ...(options.signal ? { signal: options.signal } : {}),
      }),
      readNamedIds(api, namedIdsToRead(desired, kinds), options.signal),
    ]);
  } catch (error) {
    throw atManifestId(error, desired);
  }
  options.signal?.throwIfAborted();
  const live: LiveState = { ...listed, missingNamedIds };
  return { live, plan: planChanges(desired, live, options.plan) };
}

/**
 * A read that failed because the service refused an ID (a 400, not a 404:
 * the ID is of the wrong kind or shape) names the manifest place of the
 * `id:` that gave it, file:line:col, so a mistyped ID is never taken for a
 * missing object and is found at once.
 */
function atManifestId(error: unknown, desired: DesiredState): unknown {
  let refused: KindError | undefined;
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof KindError && cause.code === 'id_refused') refused = cause;
  }
  if (refused === undefined) return error;
  const { kind, id } = refused;
  const entry = desired.entries.find((candidate) => candidate.kind === kind && candidate.id === id);
  if (entry === undefined) return error;
  const location = entry.fieldLocations['/id'] ?? entry.location;
  return new KindError(
    'id_refused',
    `${formatLocation(location)}: ${kind}.${entry.name}.id: ${refused.message}`,
    {
      kind,
      ...(id === undefined ? {} : { id }),
      cause: error,
    },
  );
}

/**
 * The GETs a read of the account makes besides its listings: one per module
 * of each module-only edge named, and one per IP policy or endpoint
 * configuration named.
 */
function readsById(desired: DesiredState, kinds: readonly Kind[]): number {
  const ids = moduleOnlyIds(desired, kinds);
  const modules = kinds.reduce(
    (sum, kind) => sum + new Set(ids[kind.name] ?? []).size * kind.modules.length,
    0,
  );
  return modules + namedIdsToRead(desired, kinds).size;
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
