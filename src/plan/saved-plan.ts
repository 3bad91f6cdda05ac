import { createHash } from 'node:crypto';
import { EdgesyncError } from '../errors.js';
import { isKindName } from '../kinds/kind-name.js';
import type { DesiredState } from '../manifest/desired-state.js';
import { replaceAt, valueAt } from './json-pointer.js';
import { type Action, OPERATIONS, type Plan } from './plan.js';

/** Bumped when a saved plan's shape changes; older files are refused, never guessed at. */
export const SAVED_PLAN_FORMAT_VERSION = 1;

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
    let body = action.request.body;
    for (const pointer of action.sensitivePaths) {
      const value = valueAt(body, pointer);
      if (typeof value === 'string') body = replaceAt(body, pointer, sensitiveHash(value));
    }
    return body === action.request.body ? action : { ...action, request: { ...action.request, body } };
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

export function serializeSavedPlan(saved: SavedPlan): string {
  return `${JSON.stringify(saved, null, 2)}\n`;
}

/** Reads a saved plan back, checking the format version and the shape the executor relies on. */
export function parseSavedPlan(text: string): SavedPlan {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SavedPlanError('plan_file_invalid', 'the plan file is not JSON', { cause: error });
  }
  const problems = savedPlanProblems(parsed);
  if (problems.length > 0) {
    throw new SavedPlanError(
      'plan_file_invalid',
      `the plan file is not a saved edgesync plan: ${problems.join('; ')}`,
    );
  }
  return parsed as SavedPlan;
}

function savedPlanProblems(value: unknown): string[] {
  if (!isRecord(value)) return ['expected a JSON object'];
  if (value.formatVersion !== SAVED_PLAN_FORMAT_VERSION) {
    return [
      `formatVersion: expected ${SAVED_PLAN_FORMAT_VERSION} (found ${JSON.stringify(value.formatVersion)})`,
    ];
  }
  const problems: string[] = [];
  if (typeof value.owner !== 'string') problems.push('owner: expected a string');
  if (typeof value.desiredHash !== 'string') problems.push('desiredHash: expected a string');
  if (!Array.isArray(value.manifestPaths) || !value.manifestPaths.every((path) => typeof path === 'string')) {
    problems.push('manifestPaths: expected a list of strings');
  }
  if (
    !isRecord(value.fingerprints) ||
    !Object.values(value.fingerprints).every((hash) => typeof hash === 'string')
  ) {
    problems.push('fingerprints: expected a mapping of strings');
  }
  const plan = value.plan;
  if (
    !isRecord(plan) ||
    !Array.isArray(plan.actions) ||
    !Array.isArray(plan.changes) ||
    !Array.isArray(plan.errors)
  ) {
    problems.push('plan: expected changes, actions and errors lists');
    return problems;
  }
  const seen = new Set<string>();
  plan.actions.forEach((action: unknown, index) => {
    const where = `plan.actions[${index}]`;
    if (!isRecord(action) || typeof action.key !== 'string') {
      problems.push(`${where}: expected an action with a key`);
      return;
    }
    if (!(OPERATIONS as readonly unknown[]).includes(action.op))
      problems.push(`${where}.op: unknown operation`);
    if (typeof action.kind !== 'string' || !isKindName(action.kind))
      problems.push(`${where}.kind: unknown kind`);
    const request = action.request;
    if (!isRecord(request) || typeof request.method !== 'string' || typeof request.path !== 'string') {
      problems.push(`${where}.request: expected method and path`);
    }
    if (!Array.isArray(action.dependsOn) || !action.dependsOn.every((key) => seen.has(String(key)))) {
      problems.push(`${where}.dependsOn: must name earlier actions only`);
    }
    if (!Array.isArray(action.sensitivePaths)) problems.push(`${where}.sensitivePaths: expected a list`);
    seen.add(action.key);
  });
  return problems;
}

/**
 * Puts the secrets back into a saved plan's request bodies so it can be
 * sent. The values come from the manifests as loaded now (or from a plan
 * made from them): every string of the desired state whose hash matches.
 * Throws `plan_stale` when a secret of the plan is not among them, i.e. the
 * manifests' secrets changed since the plan was saved.
 */
export function refillSecrets(saved: SavedPlan, source: DesiredState | Plan): Plan {
  const byHash = new Map<string, string>();
  const collect = (value: unknown): void => {
    if (typeof value === 'string') byHash.set(sensitiveHash(value).$sensitive, value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (isRecord(value)) Object.values(value).forEach(collect);
  };
  if ('entries' in source) for (const entry of source.entries) collect(entry.spec);
  else for (const action of source.actions) collect(action.request.body);
  const actions = saved.plan.actions.map((action): Action => {
    let body = action.request.body;
    for (const pointer of action.sensitivePaths) {
      const hashed = valueAt(body, pointer);
      if (!isSensitiveHash(hashed)) continue;
      const secret = byHash.get(hashed.$sensitive);
      if (secret === undefined) {
        throw new SavedPlanError(
          'plan_stale',
          `the plan file's secret at ${action.key} ${pointer} no longer matches the manifests; plan again`,
        );
      }
      body = replaceAt(body, pointer, secret);
    }
    return body === action.request.body ? action : { ...action, request: { ...action.request, body } };
  });
  return { ...saved.plan, actions };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
