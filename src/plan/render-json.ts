import { maskPointers } from './mask-pointers.js';
import type { Action, Plan, PlanError, ResourceChange } from './plan.js';

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
}

/**
 * The plan as stable JSON (`--format json`), described by
 * schemas/plan.schema.json: snake_case keys, secrets masked in request
 * bodies, `format_version` 1. Consumers may rely on every key listed there.
 */
export function planToJson(plan: Plan, options: RenderJsonOptions = {}): Record<string, unknown> {
  return {
    format_version: 1,
    owner: plan.owner,
    desired_hash: plan.desiredHash,
    summary: { ...plan.summary },
    changes: plan.changes.map(changeToJson),
    actions: plan.actions.map(actionToJson),
    errors: plan.errors.map(errorToJson),
    warnings: (plan.warnings ?? []).map(errorToJson),
    refusal: plan.refusal ? { code: plan.refusal.code, message: plan.refusal.message } : null,
    fingerprints: { ...plan.fingerprints },
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
  return `${JSON.stringify(planToJson(plan, options), null, 2)}\n`;
}

function changeToJson(change: ResourceChange): Record<string, unknown> {
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

function actionToJson(action: Action): Record<string, unknown> {
  const body = maskPointers(action.request.body, action.sensitivePaths);
  return {
    key: action.key,
    op: action.op,
    kind: action.kind,
    name: action.name,
    change: action.change,
    method: action.request.method,
    path: action.request.path,
    ...(body === undefined ? {} : { body }),
    sensitive_paths: [...action.sensitivePaths],
    depends_on: [...action.dependsOn],
    source: action.source ?? null,
  };
}

function errorToJson(error: PlanError): Record<string, unknown> {
  return { code: error.code, message: error.message, source: error.source ?? null };
}
