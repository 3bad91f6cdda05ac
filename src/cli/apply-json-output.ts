import type { UiEvent } from '../apply/progress-json.js';
import { displayRequest } from '../apply/render-requests.js';
import type { ManifestError } from '../manifest/manifest-error.js';
import type { Plan, PlanError } from '../plan/plan.js';
import { changeToJson, summaryToJson } from '../plan/render-json.js';
import { planSummaryWords } from '../plan/summary-words.js';
import type { SyncState } from '../sync-state.js';
import type { JsonUi } from './json-ui.js';

/** Every change of a plan not yet applied is pending, in the one vocabulary (src/sync-state.ts). */
const PLANNED: SyncState = 'pending';

/**
 * The plan as `apply --format json` writes it before anything is sent: a
 * `planned_change` line per change (the plan JSON's change, state
 * `pending`: Git says so and the account does not have it yet), then the
 * `change_summary`. A large plan is written a line at a time.
 */
export function writePlannedChanges(ui: JsonUi, plan: Plan): void {
  for (const change of plan.changes) {
    ui.emit('planned_change', `${change.address}: ${change.op} (${change.reason})`, {
      change: changeToJson(change),
      state: PLANNED,
    });
  }
  ui.emit('change_summary', planSummaryWords(plan.summary), {
    summary: summaryToJson(plan.summary),
    changes: plan.changes.length,
    actions: plan.actions.length,
    pending: plan.changes.length,
  });
}

/** `--dry-run`: each request the plan would send, secrets masked, as a `planned_request` line. */
export function writePlannedRequests(ui: JsonUi, plan: Plan): void {
  for (const action of plan.actions) {
    const request = displayRequest(action);
    ui.emit('planned_request', `${action.key}: ${request.method} ${request.path}`, {
      action: action.key,
      depends_on: [...action.dependsOn],
      request,
    });
  }
}

/** Each manifest problem as a `diagnostic` line with its place. */
export function writeManifestDiagnostics(ui: JsonUi, errors: readonly ManifestError[]): void {
  for (const error of errors) ui.diagnostic(error);
}

/** Each plan error as a `diagnostic` line: what only the account reveals, at its manifest place; the entry it stops is `skipped`. */
export function writePlanDiagnostics(ui: JsonUi, errors: readonly PlanError[]): void {
  for (const error of errors) {
    ui.diagnostic({
      severity: 'error',
      code: error.code,
      message: error.message,
      source: error.source ?? null,
      path: error.entry === undefined ? null : `${error.entry.kind}.${error.entry.name}`,
    });
  }
}

/** A UI event made by the executor's side (progress-json.ts), written as it is. */
export function writeEvent(ui: JsonUi, event: UiEvent | undefined): void {
  if (event !== undefined) ui.emit(event.type, event.message, event.fields, event.level);
}
