import { EdgesyncError } from '../errors.js';
import { renameKeysDeep, snakeCaseKey } from '../json-case.js';
import { jsonChunks, lazyJsonEntries } from '../json-chunks.js';
import { replaceAt, valueAt } from '../json-pointer.js';
import type { Plan } from './plan.js';
import { lazyPlanJson, planToJson } from './render-json.js';
import type { PlanContext } from './saved-plan-context.js';
import { type PlanKey, type SecretPlace, secretDigest, WITHHELD } from './secret-digest.js';

/**
 * Bumped when a saved plan's shape changes; older files are refused, never
 * guessed at. 2: snake_case keys on disk, the plan in the JSON of
 * `plan --format json` (schemas/plan.schema.json) with hashes for secrets.
 * 3: the narrowing (`--target`, `--exclude`) the plan was made with.
 * 4: secrets as keyed digests (secret-digest.ts) or withheld, and the plan
 * key's id; every earlier version held a plain sha256 of each secret.
 * 5: the context the plan was made in (saved-plan-context.ts).
 */
export const SAVED_PLAN_FORMAT_VERSION = 5;

/**
 * Stands in a saved plan's request body for a secret: its keyed digest
 * (`hmac-sha256:<key id>:<hex>`), or `withheld` when the plan was made
 * without a key; never the value, nor a digest anyone can compute.
 */
export interface SensitiveHash {
  readonly $sensitive: string;
}

/** The `--target` and `--exclude` a plan was made with (planner-options.ts). */
export interface SavedNarrowing {
  readonly targets: readonly string[];
  readonly excludes: readonly string[];
}

export const NO_NARROWING: SavedNarrowing = { targets: [], excludes: [] };

/**
 * `plan --out FILE`: what the plan was made from (owner, manifest paths,
 * narrowing, desired-state hash, live fingerprints) and the plan, with every
 * secret replaced by its hash. `apply --plan FILE` treats all of it as a
 * claim: it plans again from the manifests and the account and sends only
 * what that plan confirms (saved-plan-judge.ts).
 */
export interface SavedPlan {
  readonly formatVersion: typeof SAVED_PLAN_FORMAT_VERSION;
  readonly owner: string;
  /** The manifest paths as given on the command line. */
  readonly manifestPaths: readonly string[];
  readonly narrowing: SavedNarrowing;
  /** The id of the key the secrets were digested with (`--plan-key-file`); null: made without one, no digest kept. */
  readonly planKeyId: string | null;
  readonly desiredHash: string;
  /** sha256 of every live object the plan read, by ID: an action on an object that differs now is not sent. */
  readonly fingerprints: Readonly<Record<string, string>>;
  /** The objects around the plan it does not manage, by the resource they are in: `apply --plan` reports those that changed. */
  readonly context: PlanContext;
  /** The plan, its request bodies holding SensitiveHash objects where `sensitivePaths` point. */
  readonly plan: Plan;
}

/** A saved plan that cannot be used: unreadable, another format version, or no longer what the manifests and the account give. */
export class SavedPlanError extends EdgesyncError {
  /** The format version of a file an older edgesync wrote (`apply --plan` refuses it as stale). */
  readonly olderFormat: number | undefined;

  constructor(
    code: 'plan_file_invalid' | 'plan_stale',
    message: string,
    options?: { cause?: unknown; olderFormat?: number },
  ) {
    super(code, message, options);
    this.olderFormat = options?.olderFormat;
  }
}

export function isSensitiveHash(value: unknown): value is SensitiveHash {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SensitiveHash).$sensitive === 'string' &&
    Object.keys(value).length === 1
  );
}

/**
 * `body` with the string at each of `pointers` replaced by its keyed digest
 * at `place` (the action's owner, kind and name, and the pointer), or by
 * `withheld` without a key; the same object when there is none.
 */
export function digestSecrets(
  body: unknown,
  pointers: readonly string[],
  place: Omit<SecretPlace, 'path'>,
  key: PlanKey | undefined,
): unknown {
  let digested = body;
  for (const pointer of pointers) {
    const value = valueAt(digested, pointer);
    if (typeof value !== 'string') continue;
    const sensitive: SensitiveHash = {
      $sensitive: key === undefined ? WITHHELD : secretDigest(key, { ...place, path: pointer }, value),
    };
    digested = replaceAt(digested, pointer, sensitive);
  }
  return digested;
}

/**
 * The saved form of a plan: secrets in request bodies become their keyed
 * digests under `key`, or are withheld without one (`apply --plan` then
 * refuses any action that sends a secret).
 */
export function toSavedPlan(
  plan: Plan,
  manifestPaths: readonly string[],
  narrowing: SavedNarrowing = NO_NARROWING,
  key?: PlanKey,
  context: PlanContext = {},
): SavedPlan {
  const actions = plan.actions.map((action) => {
    // Read once: an EntryCreate makes its request again on each read.
    const request = action.request;
    const place = { owner: plan.owner, kind: action.kind, name: action.name };
    const body = digestSecrets(request.body, action.sensitivePaths, place, key);
    return body === request.body ? action : { ...action, request: { ...request, body } };
  });
  return {
    formatVersion: SAVED_PLAN_FORMAT_VERSION,
    owner: plan.owner,
    manifestPaths: [...manifestPaths],
    narrowing: { targets: [...narrowing.targets], excludes: [...narrowing.excludes] },
    planKeyId: key?.id ?? null,
    desiredHash: plan.desiredHash,
    fingerprints: plan.fingerprints,
    context,
    plan: { ...plan, actions },
  };
}

/** The file: snake_case keys like every JSON edgesync writes for machines. */
export function serializeSavedPlan(saved: SavedPlan): string {
  const plan = planToJson(saved.plan, { maskSecrets: false });
  return `${JSON.stringify(savedPlanFields(saved, plan, { ...saved.fingerprints }), null, 2)}\n`;
}

/**
 * The text of `serializeSavedPlan` in pieces, each change and action made as
 * it is written (json-chunks.ts): `plan --out` of 100,000 changes writes the
 * file without holding its JSON.
 */
export function* savedPlanChunks(saved: SavedPlan): Generator<string> {
  const plan = lazyPlanJson(saved.plan, { maskSecrets: false });
  yield* jsonChunks(savedPlanFields(saved, plan, lazyJsonEntries(saved.fingerprints)), 2, 2);
  yield '\n';
}

function savedPlanFields(saved: SavedPlan, plan: unknown, fingerprints: unknown): Record<string, unknown> {
  return {
    format_version: saved.formatVersion,
    owner: saved.owner,
    manifest_paths: [...saved.manifestPaths],
    narrowing: { targets: [...saved.narrowing.targets], excludes: [...saved.narrowing.excludes] },
    plan_key_id: saved.planKeyId,
    desired_hash: saved.desiredHash,
    fingerprints,
    context: saved.context,
    plan,
    // For a reader of the file (`show`): `apply --plan` decides safety from the plan it makes again.
    safety: saved.plan.safety === undefined ? null : renameKeysDeep(saved.plan.safety, snakeCaseKey),
  };
}
