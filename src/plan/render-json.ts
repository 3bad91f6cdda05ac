import { jsonChunks, lazyJsonArray, lazyJsonEntries } from '../json-chunks.js';
import { visibleJson, visibleJsonLine } from '../visible-text.js';
import { maskPointers } from './mask-pointers.js';
import type { Action, Plan, PlanError, PlanSummary, ResourceChange } from './plan.js';

/** What planning cost, measured by the command (the planner itself does no I/O). */
export interface PlanStats {
  /** HTTP requests made while reading the account. */
  readonly requests: number;
  /** List pages read. */
  readonly pages: number;
  /** Milliseconds from start to plan. */
  readonly durationMs: number;
}

export interface RenderJsonOptions {
  readonly stats?: PlanStats;
  /**
   * Replace the values at each action's `sensitivePaths` with "(sensitive)".
   * A saved plan passes false: its bodies already hold hashes there.
   * @default true
   */
  readonly maskSecrets?: boolean;
}

/**
 * Version of the plan JSON. 2: every key snake_case (the summary's
 * `put_module` and `delete_module` were `put-module` and `delete-module`),
 * actions carry their `marker`.
 */
export const PLAN_JSON_FORMAT_VERSION = 2;

/**
 * The plan as stable JSON (`--format json`), described by
 * schemas/plan.schema.json: snake_case keys, as the service writes them;
 * secrets masked in request bodies. Consumers may rely on every key listed
 * there; keys are only added within a format version.
 */
export function planToJson(plan: Plan, options: RenderJsonOptions = {}): Record<string, unknown> {
  const mask = options.maskSecrets ?? true;
  return planJsonFields(plan, options, {
    changes: plan.changes.map(changeToJson),
    actions: plan.actions.map((action) => actionToJson(action, mask)),
    fingerprints: { ...plan.fingerprints },
  });
}

/**
 * The fields of `planToJson` with its three long lists made as they are
 * written (json-chunks.ts): for `jsonChunks`, which writes each change,
 * action and fingerprint when it gets to it instead of holding a copy of all.
 */
export function lazyPlanJson(plan: Plan, options: RenderJsonOptions = {}): Record<string, unknown> {
  const mask = options.maskSecrets ?? true;
  return planJsonFields(plan, options, {
    changes: lazyJsonArray(plan.changes, changeToJson),
    actions: lazyJsonArray(plan.actions, (action) => actionToJson(action, mask)),
    fingerprints: lazyJsonEntries(plan.fingerprints),
  });
}

function planJsonFields(
  plan: Plan,
  options: RenderJsonOptions,
  lists: { readonly changes: unknown; readonly actions: unknown; readonly fingerprints: unknown },
): Record<string, unknown> {
  return {
    format_version: PLAN_JSON_FORMAT_VERSION,
    owner: plan.owner,
    desired_hash: plan.desiredHash,
    summary: summaryToJson(plan.summary),
    changes: lists.changes,
    actions: lists.actions,
    errors: plan.errors.map(errorToJson),
    warnings: (plan.warnings ?? []).map(errorToJson),
    refusal: plan.refusal ? { code: plan.refusal.code, message: plan.refusal.message } : null,
    fingerprints: lists.fingerprints,
    stats: options.stats
      ? {
          requests: options.stats.requests,
          pages: options.stats.pages,
          duration_ms: options.stats.durationMs,
        }
      : null,
  };
}

export function renderPlanJson(plan: Plan, options: RenderJsonOptions = {}): string {
  return `${visibleJson(planToJson(plan, options), 2)}\n`;
}

/**
 * The text of `renderPlanJson`, plus `extra` fields at the end, in pieces
 * made as they are written: a command writes a plan of any size this way.
 */
export function* planJsonChunks(
  plan: Plan,
  options: RenderJsonOptions = {},
  extra: Readonly<Record<string, unknown>> = {},
): Generator<string> {
  for (const chunk of jsonChunks({ ...lazyPlanJson(plan, options), ...extra }, 2))
    yield visibleJsonLine(chunk);
  yield '\n';
}

/** Summary counts with snake_case keys: an operation's `-` becomes `_`. */
export function summaryToJson(summary: PlanSummary): Record<string, number> {
  return Object.fromEntries(Object.entries(summary).map(([key, count]) => [key.replaceAll('-', '_'), count]));
}

export function changeToJson(change: ResourceChange): Record<string, unknown> {
  return {
    address: change.address,
    op: change.op,
    kind: change.kind,
    name: change.name,
    id: change.id ?? null,
    module: change.module ?? null,
    route_id: change.routeId ?? null,
    reason: change.reason,
    source: change.source ?? null,
    changes: change.changes.map((field) => ({
      path: field.path,
      ...('before' in field ? { before: field.before } : {}),
      ...('after' in field ? { after: field.after } : {}),
      sensitive: field.sensitive,
      forces_replace: field.forcesReplace,
    })),
    action_keys: [...change.actionKeys],
  };
}

function actionToJson(action: Action, mask: boolean): Record<string, unknown> {
  // Read once: an EntryCreate makes its request again on each read.
  const request = action.request;
  const body = mask ? maskPointers(request.body, action.sensitivePaths) : request.body;
  return {
    key: action.key,
    op: action.op,
    kind: action.kind,
    name: action.name,
    change: action.change,
    method: request.method,
    path: request.path,
    ...(body === undefined ? {} : { body }),
    sensitive_paths: [...action.sensitivePaths],
    depends_on: [...action.dependsOn],
    marker: action.marker ? { owner: action.marker.owner, name: action.marker.name } : null,
    source: action.source ?? null,
  };
}

function errorToJson(error: PlanError): Record<string, unknown> {
  return { code: error.code, message: error.message, source: error.source ?? null };
}
