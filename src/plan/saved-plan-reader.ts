import type { ApiRequest } from '../api/edge-api.js';
import { JsonArrayElements } from '../json-array-elements.js';
import { camelCaseKey, renameKeysDeep } from '../json-case.js';
import { isRecord } from '../json-value.js';
import { isKindName } from '../kinds/kind-name.js';
import { sharedCopy } from '../kinds/repeated-strings.js';
import type { SourceLocation } from '../manifest/source-location.js';
import {
  type Action,
  OPERATIONS,
  type Operation,
  type PlanError,
  type PlanSummary,
  type ResourceChange,
} from './plan.js';
import { type PlanRefusal, type PlanSafety, REFUSAL_CODES } from './safety-policy.js';
import { SAVED_PLAN_FORMAT_VERSION, type SavedPlan, SavedPlanError } from './saved-plan.js';

/**
 * Reads a saved plan back from its text in pieces, checking the format
 * version and the shape the executor relies on. Each change and action is
 * checked and made into the plan's as it is read, and its parsed JSON is
 * garbage at once (JsonArrayElements): the file of 100,000 changes is never
 * one string nor one parsed tree.
 */
export class SavedPlanReader {
  readonly #elements = new JsonArrayElements([CHANGES, ACTIONS], (path, index, value) =>
    path === 0 ? this.#change(index, value) : this.#action(index, value),
  );
  readonly #changes: ResourceChange[] = [];
  readonly #actions: Action[] = [];
  /** What is wrong with the changes and actions read so far; once there is something, nothing more is made. */
  readonly #problems: string[] = [];
  /** Keys of the actions read so far: an action may wait only for earlier ones. */
  readonly #keys = new Set<string>();

  push(text: string): void {
    notJsonAsSavedPlanError(() => this.#elements.push(text));
  }

  end(): SavedPlan {
    const file = notJsonAsSavedPlanError(() => this.#elements.end());
    const problems = fileProblems(file);
    // A file of another format is only that: its changes' problems would be noise.
    if (problems.length === 0 || !isFormatProblem(problems)) problems.push(...this.#problems);
    if (problems.length > 0) {
      throw new SavedPlanError(
        'plan_file_invalid',
        `the plan file is not a saved edgesync plan: ${problems.join('; ')}`,
      );
    }
    return savedPlanFromFile(file as Record<string, unknown>, this.#changes, this.#actions);
  }

  #change(index: number, change: unknown): void {
    if (!isRecord(change) || typeof change.address !== 'string' || !Array.isArray(change.changes)) {
      this.#problems.push(`plan.changes[${index}]: expected a change with an address and field changes`);
    }
    if (this.#problems.length === 0) this.#changes.push(changeFromFile(change as Record<string, unknown>));
  }

  #action(index: number, action: unknown): void {
    const where = `plan.actions[${index}]`;
    const before = this.#problems.length;
    if (!isRecord(action) || typeof action.key !== 'string') {
      this.#problems.push(`${where}: expected an action with a key`);
      return;
    }
    if (!(OPERATIONS as readonly unknown[]).includes(action.op))
      this.#problems.push(`${where}.op: unknown operation`);
    if (typeof action.kind !== 'string' || !isKindName(action.kind))
      this.#problems.push(`${where}.kind: unknown kind`);
    if (typeof action.method !== 'string' || typeof action.path !== 'string') {
      this.#problems.push(`${where}: expected method and path`);
    }
    if (!Array.isArray(action.depends_on) || !action.depends_on.every((key) => this.#keys.has(String(key)))) {
      this.#problems.push(`${where}.depends_on: must name earlier actions only`);
    }
    if (!Array.isArray(action.sensitive_paths))
      this.#problems.push(`${where}.sensitive_paths: expected a list`);
    this.#keys.add(action.key);
    if (before === 0 && this.#problems.length === 0) this.#actions.push(actionFromFile(action));
  }
}

/** What `apply --plan` checks before it reads the plan itself: the manifests the plan was made from. */
export interface SavedPlanHeader {
  readonly owner: string;
  readonly manifestPaths: readonly string[];
  readonly desiredHash: string;
}

/**
 * Reads a saved plan's header from its text in pieces, its changes and
 * actions skipped unparsed, checking what SavedPlanReader checks of the file
 * but those: `apply --plan` loads the manifests and compares their hash before
 * it holds the plan, so that the load's garbage and the plan are never in
 * memory together.
 */
export class SavedPlanHeaderReader {
  readonly #elements = new JsonArrayElements([CHANGES, ACTIONS]);

  push(text: string): void {
    notJsonAsSavedPlanError(() => this.#elements.push(text));
  }

  end(): SavedPlanHeader {
    const file = notJsonAsSavedPlanError(() => this.#elements.end());
    const problems = fileProblems(file);
    if (problems.length > 0) {
      throw new SavedPlanError(
        'plan_file_invalid',
        `the plan file is not a saved edgesync plan: ${problems.join('; ')}`,
      );
    }
    const checked = file as Record<string, unknown>;
    return {
      owner: String(checked.owner),
      manifestPaths: (checked.manifest_paths as unknown[]).map(String),
      desiredHash: String(checked.desired_hash),
    };
  }
}

/** Reads a saved plan from its whole text (see SavedPlanReader). */
export function parseSavedPlan(text: string): SavedPlan {
  const reader = new SavedPlanReader();
  reader.push(text);
  return reader.end();
}

const CHANGES = ['plan', 'changes'];
const ACTIONS = ['plan', 'actions'];

function notJsonAsSavedPlanError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new SavedPlanError('plan_file_invalid', 'the plan file is not JSON', { cause: error });
  }
}

const FORMAT_PROBLEM = 'format_version:';

function isFormatProblem(problems: readonly string[]): boolean {
  return problems[0]?.startsWith(FORMAT_PROBLEM) === true;
}

/** What is wrong with the file but its changes and actions, which the reader checks one by one. */
function fileProblems(value: unknown): string[] {
  if (!isRecord(value)) return ['expected a JSON object'];
  if (value.format_version !== SAVED_PLAN_FORMAT_VERSION) {
    const found = value.format_version ?? value.formatVersion;
    const hint = found === 1 ? ' (a plan saved by an older edgesync: plan again)' : '';
    return [
      `${FORMAT_PROBLEM} expected ${SAVED_PLAN_FORMAT_VERSION} (found ${JSON.stringify(found)})${hint}`,
    ];
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
  return problems;
}

function sourceOf(value: unknown): { source?: SourceLocation } {
  if (!isRecord(value)) return {};
  const file = typeof value.file === 'string' ? sharedCopy(value.file) : value.file;
  return { source: { ...value, file } as unknown as SourceLocation };
}

function optional<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return (typeof value === 'string' ? { [key]: value } : {}) as { [P in K]?: string };
}

/**
 * A checked change of the file as the plan's. Strings that recur from change
 * to change (kinds, operations, field paths, file names) are shared: JSON.parse
 * gives each its own copy, ~35 MB of a saved plan of 100,000 creates.
 */
function changeFromFile(change: Record<string, unknown>): ResourceChange {
  return {
    address: String(change.address),
    op: sharedCopy(String(change.op)) as Operation,
    kind: sharedCopy(String(change.kind)),
    name: String(change.name),
    ...optional('id', change.id),
    ...optional('module', change.module),
    ...optional('routeId', change.route_id),
    changes: ((change.changes ?? []) as Record<string, unknown>[]).map((field) => ({
      path: sharedCopy(String(field.path)),
      ...('before' in field ? { before: field.before } : {}),
      ...('after' in field ? { after: field.after } : {}),
      sensitive: field.sensitive === true,
      forcesReplace: field.forces_replace === true,
    })),
    reason: sharedCopy(String(change.reason)),
    ...sourceOf(change.source),
    actionKeys: ((change.action_keys ?? []) as unknown[]).map(String),
  };
}

/** A checked action of the file as the plan's, recurring strings shared as a change's are. */
function actionFromFile(action: Record<string, unknown>): Action {
  const marker = action.marker as { owner: string; name: string } | null | undefined;
  return {
    key: String(action.key),
    op: sharedCopy(String(action.op)) as Operation,
    kind: sharedCopy(String(action.kind)),
    name: String(action.name),
    change: String(action.change),
    request: {
      method: sharedCopy(String(action.method)) as ApiRequest['method'],
      path: sharedCopy(String(action.path)),
      ...('body' in action ? { body: action.body } : {}),
    } as ApiRequest,
    sensitivePaths: (action.sensitive_paths as unknown[]).map(String),
    ...(isRecord(marker) ? { marker: { owner: sharedCopy(marker.owner), name: marker.name } } : {}),
    dependsOn: (action.depends_on as unknown[]).map(String),
    ...sourceOf(action.source),
  };
}

/** The checked file back in memory, with its changes and actions as read. */
function savedPlanFromFile(
  file: Record<string, unknown>,
  changes: readonly ResourceChange[],
  actions: readonly Action[],
): SavedPlan {
  const plan = file.plan as Record<string, unknown>;
  const summary = plan.summary as Record<string, number>;
  const fingerprints = file.fingerprints as Record<string, string>;
  const problem = (value: unknown): PlanError => {
    const item = value as Record<string, unknown>;
    return { code: String(item.code), message: String(item.message), ...sourceOf(item.source) };
  };
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
