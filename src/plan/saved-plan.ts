import { createHash } from 'node:crypto';
import type { ApiRequest } from '../api/edge-api.js';
import { EdgesyncError } from '../errors.js';
import { camelCaseKey, renameKeysDeep, snakeCaseKey } from '../json-case.js';
import { jsonChunks, lazyJsonEntries } from '../json-chunks.js';
import { replaceAt, valueAt } from '../json-pointer.js';
import { isRecord } from '../json-value.js';
import type { KindName } from '../kinds/kind-name.js';
import { isKindName } from '../kinds/kind-name.js';
import type { DesiredState } from '../manifest/desired-state.js';
import type { SourceLocation } from '../manifest/source-location.js';
import {
  type Action,
  OPERATIONS,
  type Operation,
  type Plan,
  type PlanError,
  type PlanSummary,
  type ResourceChange,
} from './plan.js';
import { lazyPlanJson, planToJson } from './render-json.js';
import { type PlanRefusal, type PlanSafety, REFUSAL_CODES } from './safety-policy.js';

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
    return body === request.body ? action : withBody(action, request, body);
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
  return savedPlanFromFile(parsed as Record<string, unknown>);
}

/** The checked file back in memory; savedPlanProblems has vouched for every shape read here. */
function savedPlanFromFile(file: Record<string, unknown>): SavedPlan {
  const plan = file.plan as Record<string, unknown>;
  const summary = plan.summary as Record<string, number>;
  const fingerprints = file.fingerprints as Record<string, string>;
  const source = (value: unknown): { source?: SourceLocation } =>
    isRecord(value) ? { source: value as unknown as SourceLocation } : {};
  const problem = (value: unknown): PlanError => {
    const item = value as Record<string, unknown>;
    return { code: String(item.code), message: String(item.message), ...source(item.source) };
  };
  const optional = <K extends string>(key: K, value: unknown): { [P in K]?: string } =>
    (typeof value === 'string' ? { [key]: value } : {}) as { [P in K]?: string };
  const changes = (plan.changes as Record<string, unknown>[]).map(
    (change): ResourceChange => ({
      address: String(change.address),
      op: change.op as Operation,
      kind: change.kind as KindName,
      name: String(change.name),
      ...optional('id', change.id),
      ...optional('module', change.module),
      ...optional('routeId', change.route_id),
      changes: ((change.changes ?? []) as Record<string, unknown>[]).map((field) => ({
        path: String(field.path),
        ...('before' in field ? { before: field.before } : {}),
        ...('after' in field ? { after: field.after } : {}),
        sensitive: field.sensitive === true,
        forcesReplace: field.forces_replace === true,
      })),
      reason: String(change.reason),
      ...source(change.source),
      actionKeys: ((change.action_keys ?? []) as unknown[]).map(String),
    }),
  );
  const actions = (plan.actions as Record<string, unknown>[]).map((action): Action => {
    const marker = action.marker as { owner: string; name: string } | null | undefined;
    return {
      key: String(action.key),
      op: action.op as Operation,
      kind: action.kind as KindName,
      name: String(action.name),
      change: String(action.change),
      request: {
        method: action.method as ApiRequest['method'],
        path: String(action.path),
        ...('body' in action ? { body: action.body } : {}),
      } as ApiRequest,
      sensitivePaths: (action.sensitive_paths as unknown[]).map(String),
      ...(isRecord(marker) ? { marker: { owner: marker.owner, name: marker.name } } : {}),
      dependsOn: (action.depends_on as unknown[]).map(String),
      ...source(action.source),
    };
  });
  const refusal = plan.refusal as PlanRefusal | null | undefined;
  const safety = isRecord(file.safety)
    ? { safety: renameKeysDeep(file.safety, camelCaseKey) as PlanSafety }
    : {};
  return {
    formatVersion: SAVED_PLAN_FORMAT_VERSION,
    owner: String(file.owner),
    manifestPaths: (file.manifest_paths as unknown[]).map(String),
    desiredHash: String(file.desired_hash),
    fingerprints,
    plan: {
      formatVersion: 1,
      owner: String(plan.owner ?? file.owner),
      changes,
      actions,
      summary: Object.fromEntries(
        Object.entries(summary).map(([key, count]) => [key.replaceAll('_', '-'), count]),
      ) as PlanSummary,
      errors: ((plan.errors ?? []) as unknown[]).map(problem),
      warnings: ((plan.warnings ?? []) as unknown[]).map(problem),
      ...(isRecord(refusal) ? { refusal: { code: refusal.code, message: refusal.message } } : {}),
      ...safety,
      desiredHash: String(file.desired_hash),
      fingerprints,
    },
  };
}

function savedPlanProblems(value: unknown): string[] {
  if (!isRecord(value)) return ['expected a JSON object'];
  if (value.format_version !== SAVED_PLAN_FORMAT_VERSION) {
    const found = value.format_version ?? value.formatVersion;
    const hint = found === 1 ? ' (a plan saved by an older edgesync: plan again)' : '';
    return [`format_version: expected ${SAVED_PLAN_FORMAT_VERSION} (found ${JSON.stringify(found)})${hint}`];
  }
  const problems: string[] = [];
  if (typeof value.owner !== 'string') problems.push('owner: expected a string');
  if (typeof value.desired_hash !== 'string') problems.push('desired_hash: expected a string');
  if (
    !Array.isArray(value.manifest_paths) ||
    !value.manifest_paths.every((path) => typeof path === 'string')
  ) {
    problems.push('manifest_paths: expected a list of strings');
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
    !Array.isArray(plan.errors) ||
    !isRecord(plan.summary)
  ) {
    problems.push('plan: expected a summary and changes, actions and errors lists');
    return problems;
  }
  if (plan.refusal !== null && plan.refusal !== undefined) {
    const code = isRecord(plan.refusal) ? plan.refusal.code : undefined;
    if (!(REFUSAL_CODES as readonly unknown[]).includes(code))
      problems.push('plan.refusal.code: unknown refusal');
  }
  if (value.safety !== null && value.safety !== undefined) {
    if (!isRecord(value.safety) || !isRecord(value.safety.context) || !isRecord(value.safety.facts)) {
      problems.push('safety: expected context and facts');
    }
  }
  plan.changes.forEach((change: unknown, index) => {
    if (!isRecord(change) || typeof change.address !== 'string' || !Array.isArray(change.changes)) {
      problems.push(`plan.changes[${index}]: expected a change with an address and field changes`);
    }
  });
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
    if (typeof action.method !== 'string' || typeof action.path !== 'string') {
      problems.push(`${where}: expected method and path`);
    }
    if (!Array.isArray(action.depends_on) || !action.depends_on.every((key) => seen.has(String(key)))) {
      problems.push(`${where}.depends_on: must name earlier actions only`);
    }
    if (!Array.isArray(action.sensitive_paths)) problems.push(`${where}.sensitive_paths: expected a list`);
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
    const request = action.request;
    let body = request.body;
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
    return body === request.body ? action : withBody(action, request, body);
  });
  return { ...saved.plan, actions };
}

/**
 * A plain copy of `action` with another request body. Property by property,
 * not spread: an EntryCreate's properties but its key are read through its
 * class, which a spread does not copy.
 */
function withBody(action: Action, request: ApiRequest, body: unknown): Action {
  return {
    key: action.key,
    op: action.op,
    kind: action.kind,
    name: action.name,
    change: action.change,
    request: { ...request, body },
    sensitivePaths: action.sensitivePaths,
    ...(action.marker === undefined ? {} : { marker: action.marker }),
    dependsOn: action.dependsOn,
    ...(action.source === undefined ? {} : { source: action.source }),
  };
}
