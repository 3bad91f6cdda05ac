import { createHash } from 'node:crypto';
import { EdgesyncError } from '../errors.js';
import { renameKeysDeep, snakeCaseKey } from '../json-case.js';
import { jsonChunks, lazyJsonEntries } from '../json-chunks.js';
import { replaceAt, valueAt } from '../json-pointer.js';
import { isRecord } from '../json-value.js';
import type { DesiredState } from '../manifest/desired-state.js';
import type { Action, Plan } from './plan.js';
import { lazyPlanJson, planToJson } from './render-json.js';

/**
 * Bumped when a saved plan's shape changes; older files are refused, never
 * guessed at. 2: snake_case keys on disk, the plan in the JSON of
 * `plan --format json` (schemas/plan.schema.json) with hashes for secrets.
 */
export const SAVED_PLAN_FORMAT_VERSION = 2;

/** Stands in a saved plan's request body for a secret: its sha256, never the value. */
export interface SensitiveHash {
  readonly $sensitive: string;
}

/**
 * `plan --out FILE`: everything `apply --plan FILE` needs to check that
 * nothing moved (desired-state hash, live fingerprints) and to send the
 * same requests, with every secret replaced by its hash.
 */
export interface SavedPlan {
  readonly formatVersion: typeof SAVED_PLAN_FORMAT_VERSION;
  readonly owner: string;
  /** The manifest paths as given on the command line. */
  readonly manifestPaths: readonly string[];
  readonly desiredHash: string;
  /** sha256 of every live object the plan read, by ID: apply re-reads these and refuses when one differs. */
  readonly fingerprints: Readonly<Record<string, string>>;
  /** The plan, its request bodies holding SensitiveHash objects where `sensitivePaths` point. */
  readonly plan: Plan;
}

/** A saved plan that cannot be used: unreadable, another format version, or secrets that no longer match. */
export class SavedPlanError extends EdgesyncError {
  constructor(code: 'plan_file_invalid' | 'plan_stale', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

export function sensitiveHash(value: string): SensitiveHash {
  return { $sensitive: `sha256:${createHash('sha256').update(value).digest('hex')}` };
}

function isSensitiveHash(value: unknown): value is SensitiveHash {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SensitiveHash).$sensitive === 'string' &&
    Object.keys(value).length === 1
  );
}

/** The saved form of a plan: secrets in request bodies become their hashes. */
export function toSavedPlan(plan: Plan, manifestPaths: readonly string[]): SavedPlan {
  const actions = plan.actions.map((action) => {
    // Read once: an EntryCreate makes its request again on each read.
    const request = action.request;
    let body = request.body;
    for (const pointer of action.sensitivePaths) {
      const value = valueAt(body, pointer);
      if (typeof value === 'string') body = replaceAt(body, pointer, sensitiveHash(value));
    }
    return body === request.body ? action : { ...action, request: { ...request, body } };
  });
  return {
    formatVersion: SAVED_PLAN_FORMAT_VERSION,
    owner: plan.owner,
    manifestPaths: [...manifestPaths],
    desiredHash: plan.desiredHash,
    fingerprints: plan.fingerprints,
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
 * file without holding its JSON (issue 18).
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
    desired_hash: saved.desiredHash,
    fingerprints,
    plan,
    // What the refusal was decided from, so `apply --plan` judges it again.
    safety: saved.plan.safety === undefined ? null : renameKeysDeep(saved.plan.safety, snakeCaseKey),
  };
}

/**
 * Puts the secrets back into a saved plan's request bodies so it can be
 * sent. The values come from the manifests as loaded now (or from a plan
 * made from them): every string of the desired state whose hash matches.
 * Throws `plan_stale` when a secret of the plan is not among them, i.e. the
 * manifests' secrets changed since the plan was saved.
 */
export function refillSecrets(saved: SavedPlan, source: DesiredState | Plan): Plan {
  // Hashed only when the plan holds a secret: most hold none, and hashing every string of 100,000
  // entries took seconds and a map of them (issue 18).
  let byHash: Map<string, string> | undefined;
  const secretOf = (hash: string): string | undefined => {
    byHash ??= stringsByHash(source);
    return byHash.get(hash);
  };
  const actions = saved.plan.actions.map((action): Action => {
    const request = action.request;
    let body = request.body;
    for (const pointer of action.sensitivePaths) {
      const hashed = valueAt(body, pointer);
      if (!isSensitiveHash(hashed)) continue;
      const secret = secretOf(hashed.$sensitive);
      if (secret === undefined) {
        throw new SavedPlanError(
          'plan_stale',
          `the plan file's secret at ${action.key} ${pointer} no longer matches the manifests; plan again`,
        );
      }
      body = replaceAt(body, pointer, secret);
    }
    return body === request.body ? action : { ...action, request: { ...request, body } };
  });
  return { ...saved.plan, actions };
}

/** Every string of the manifests' specs (or of a plan's bodies), by its SensitiveHash. */
function stringsByHash(source: DesiredState | Plan): Map<string, string> {
  const byHash = new Map<string, string>();
  const collect = (value: unknown): void => {
    if (typeof value === 'string') byHash.set(sensitiveHash(value).$sensitive, value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (isRecord(value)) Object.values(value).forEach(collect);
  };
  if ('entries' in source) for (const entry of source.entries) collect(entry.spec);
  else for (const action of source.actions) collect(action.request.body);
  return byHash;
}
