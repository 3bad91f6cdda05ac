import type { ApiRequest } from '../api/edge-api.js';
import { JsonArrayElements, JsonLimitError } from '../json-array-elements.js';
import { camelCaseKey, renameKeysDeep } from '../json-case.js';
import { isRecord } from '../json-value.js';
import type { Kind } from '../kinds/kind.js';
import type { KindName } from '../kinds/kind-name.js';
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
import {
  SAVED_PLAN_FORMAT_VERSION,
  type SavedNarrowing,
  type SavedPlan,
  SavedPlanError,
} from './saved-plan.js';
import type { PlanContext } from './saved-plan-context.js';
import { isNarrowingPattern } from './saved-plan-narrowing.js';

/**
 * What a saved plan may hold. The file is untrusted input (a CI artifact):
 * bounds are checked as it is read, before anything beyond them is parsed.
 * Each is far above what a plan the docs allow gives: manifests nest at most
 * 64 levels (a plan's JSON adds fewer than 16 around a value), one entry is
 * at most a 5 MB file (escaped, before and after), and a plan of 100,000
 * creates is a 210 MB file with a few hundred bytes besides its changes and
 * actions (about 100 bytes more per fingerprint of a live object).
 */
export const SAVED_PLAN_LIMITS = {
  maxDepth: 128,
  maxElementChars: 32 * 1024 * 1024,
  maxRestChars: 128 * 1024 * 1024,
  maxFileChars: 2 * 1024 * 1024 * 1024,
} as const;

/**
 * Reads a saved plan back from its text in pieces, checking the format
 * version and the shape the executor relies on. Each change and action is
 * checked and made into the plan's as it is read, and its parsed JSON is
 * garbage at once (JsonArrayElements): the file of 100,000 changes is never
 * one string nor one parsed tree. `show` reads a plan this way.
 */
export class SavedPlanReader {
  readonly #text = new BoundedText((path, index, value) =>
    path === 0 ? this.#change(index, value) : this.#action(index, value),
  );
  readonly #changes: ResourceChange[] = [];
  readonly #kindNames: ReadonlySet<KindName>;
  readonly #actions: ActionChecker;
  readonly #kept: Action[] = [];
  /** What is wrong with the changes read so far; once there is something, nothing more is made. */
  readonly #problems: string[] = [];

  /** `kinds`: the registry in use; an action or a narrowing of a kind outside it is a problem of the file. */
  constructor(kinds: readonly Kind[]) {
    this.#kindNames = kindNamesOf(kinds);
    this.#actions = new ActionChecker(this.#kindNames, (action) => this.#kept.push(action));
  }

  push(text: string): void {
    this.#text.push(text);
  }

  end(): SavedPlan {
    const file = this.#text.end();
    const problems = fileProblems(file, this.#kindNames);
    // A file of another format is only that: its changes' problems would be noise.
    if (problems.length === 0 || !isFormatProblem(problems))
      problems.push(...this.#problems, ...this.#actions.problems);
    throwIfAny(problems, olderFormatOf(file));
    return savedPlanFromFile(file as Record<string, unknown>, this.#changes, this.#kept);
  }

  #change(index: number, change: unknown): void {
    if (!isRecord(change) || typeof change.address !== 'string' || !Array.isArray(change.changes)) {
      this.#problems.push(`plan.changes[${index}]: expected a change with an address and field changes`);
    }
    if (this.#problems.length === 0) this.#changes.push(changeFromFile(change as Record<string, unknown>));
  }

  #action(index: number, action: unknown): void {
    this.#actions.check(index, action, this.#problems.length === 0);
  }
}

/** What a saved plan claims it was made from: `apply --plan` checks each against its command line. */
export interface SavedPlanHeader {
  readonly owner: string;
  readonly manifestPaths: readonly string[];
  readonly narrowing: SavedNarrowing;
  /** The plan key's id the secrets were digested with; null when the plan was made without one. */
  readonly planKeyId: string | null;
  readonly desiredHash: string;
}

/**
 * Reads a saved plan's header from its text in pieces, its changes and
 * actions skipped unparsed, checking what SavedPlanReader checks of the file
 * but those: `apply --plan` checks the header against its command line and
 * loads the manifests before it reads the actions.
 */
export class SavedPlanHeaderReader {
  readonly #text = new BoundedText();
  readonly #kindNames: ReadonlySet<KindName>;

  /** `kinds`: the registry in use (SavedPlanReader). */
  constructor(kinds: readonly Kind[]) {
    this.#kindNames = kindNamesOf(kinds);
  }

  push(text: string): void {
    this.#text.push(text);
  }

  end(): SavedPlanHeader {
    const file = this.#text.end();
    throwIfAny(fileProblems(file, this.#kindNames), olderFormatOf(file));
    return headerOf(file as Record<string, unknown>);
  }
}

/** The header of a saved plan and the fingerprints it recorded, read with its actions. */
export interface SavedPlanClaims extends SavedPlanHeader {
  readonly fingerprints: Readonly<Record<string, string>>;
  /** The objects around the plan it recorded (saved-plan-context.ts). */
  readonly context: PlanContext;
  /** How many actions the file holds. */
  readonly actionCount: number;
}

/**
 * Reads a saved plan's actions one at a time, each checked and handed to
 * `onAction` as it is read and held no longer; the changes (what a person
 * reads) are skipped unparsed. `apply --plan` judges each action against the
 * plan it made again as it reads it (saved-plan-judge.ts), so a plan of
 * 100,000 actions is never held beside the one that is applied.
 */
export class SavedPlanActionsReader {
  readonly #text: BoundedText;
  readonly #kindNames: ReadonlySet<KindName>;
  readonly #actions: ActionChecker;

  /** `kinds`: the registry in use (SavedPlanReader). */
  constructor(kinds: readonly Kind[], onAction: (action: Action) => void) {
    this.#kindNames = kindNamesOf(kinds);
    this.#actions = new ActionChecker(this.#kindNames, onAction);
    this.#text = new BoundedText((_path, index, value) => this.#actions.check(index, value), [0]);
  }

  push(text: string): void {
    this.#text.push(text);
  }

  end(): SavedPlanClaims {
    const file = this.#text.end();
    const problems = fileProblems(file, this.#kindNames);
    if (problems.length === 0 || !isFormatProblem(problems)) problems.push(...this.#actions.problems);
    throwIfAny(problems, olderFormatOf(file));
    const checked = file as Record<string, unknown>;
    return {
      ...headerOf(checked),
      fingerprints: checked.fingerprints as Record<string, string>,
      context: checked.context as PlanContext,
      actionCount: this.#actions.count,
    };
  }
}

/** Reads a saved plan from its whole text (see SavedPlanReader). */
export function parseSavedPlan(text: string, kinds: readonly Kind[]): SavedPlan {
  const reader = new SavedPlanReader(kinds);
  reader.push(text);
  return reader.end();
}

const CHANGES = ['plan', 'changes'];
const ACTIONS = ['plan', 'actions'];

/**
 * The file's text into a JsonArrayElements, within SAVED_PLAN_LIMITS: what is
 * not JSON, or is beyond a limit, is a `plan_file_invalid` that says which.
 */
class BoundedText {
  readonly #elements: JsonArrayElements;
  #chars = 0;

  /** Without `onElement`, changes and actions are skipped; `skip`: the paths (0 changes, 1 actions) skipped. */
  constructor(
    onElement?: (path: number, index: number, value: unknown) => void,
    skip: readonly number[] = [],
  ) {
    this.#elements = new JsonArrayElements([CHANGES, ACTIONS], onElement, {
      skip,
      limits: SAVED_PLAN_LIMITS,
    });
  }

  push(text: string): void {
    this.#chars += text.length;
    if (this.#chars > SAVED_PLAN_LIMITS.maxFileChars) {
      throw invalid(`the plan file is longer than ${SAVED_PLAN_LIMITS.maxFileChars} characters`);
    }
    asSavedPlanError(() => this.#elements.push(text));
  }

  end(): unknown {
    return asSavedPlanError(() => this.#elements.end());
  }
}

function asSavedPlanError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof JsonLimitError)
      throw invalid(`the plan file is refused: it is ${error.message}`, error);
    if (!(error instanceof SyntaxError)) throw error;
    throw invalid('the plan file is not JSON', error);
  }
}

function invalid(message: string, cause?: unknown): SavedPlanError {
  return new SavedPlanError('plan_file_invalid', message, cause === undefined ? undefined : { cause });
}

function throwIfAny(problems: readonly string[], olderFormat?: number): void {
  if (problems.length === 0) return;
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN);
  const more = problems.length - shown.length;
  throw new SavedPlanError(
    'plan_file_invalid',
    `the plan file is not a saved edgesync plan: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`,
    olderFormat === undefined ? {} : { olderFormat },
  );
}

/** What an older format lacks, for people. */
export function olderFormatReason(format: number): string {
  return format < 4
    ? 'whose plan files held a plain sha256 of each secret, which anyone who can read the file can test guesses against'
    : 'whose plan files did not record the objects around the plan';
}

/** The format version of a file an older edgesync wrote, if it is one. */
function olderFormatOf(value: unknown): number | undefined {
  if (!isRecord(value)) return undefined;
  const found = value.format_version ?? value.formatVersion;
  return typeof found === 'number' && found >= 1 && found < SAVED_PLAN_FORMAT_VERSION ? found : undefined;
}

/** A file of 100,000 broken actions gives one readable line, not 100,000. */
const MAX_PROBLEMS_SHOWN = 20;

/**
 * Checks each action of the file as it is read and hands on the checked ones
 * while the file has no problem: keys unique, dependencies on earlier
 * actions only, known operations and kinds, a method and a path.
 */
class ActionChecker {
  readonly problems: string[] = [];
  count = 0;
  readonly #keys = new Set<string>();
  readonly #kindNames: ReadonlySet<KindName>;
  readonly #onAction: (action: Action) => void;

  constructor(kindNames: ReadonlySet<KindName>, onAction: (action: Action) => void) {
    this.#kindNames = kindNames;
    this.#onAction = onAction;
  }

  /** `handOn` false: only checked (something else in the file is already wrong). */
  check(index: number, action: unknown, handOn = true): void {
    this.count += 1;
    const where = `plan.actions[${index}]`;
    const before = this.problems.length;
    if (!isRecord(action) || typeof action.key !== 'string') {
      this.problems.push(`${where}: expected an action with a key`);
      return;
    }
    if (this.#keys.has(action.key)) this.problems.push(`${where}.key: "${action.key}" is given twice`);
    if (!(OPERATIONS as readonly unknown[]).includes(action.op))
      this.problems.push(`${where}.op: unknown operation`);
    if (typeof action.kind !== 'string' || !this.#kindNames.has(action.kind))
      this.problems.push(`${where}.kind: unknown kind`);
    if (typeof action.method !== 'string' || typeof action.path !== 'string') {
      this.problems.push(`${where}: expected method and path`);
    } else if (!(METHODS as readonly string[]).includes(action.method)) {
      this.problems.push(`${where}.method: expected one of ${METHODS.join(', ')}`);
    }
    if (!Array.isArray(action.depends_on) || !action.depends_on.every((key) => this.#keys.has(String(key)))) {
      this.problems.push(`${where}.depends_on: must name earlier actions only`);
    }
    if (
      !Array.isArray(action.sensitive_paths) ||
      !action.sensitive_paths.every((at) => typeof at === 'string')
    )
      this.problems.push(`${where}.sensitive_paths: expected a list of JSON Pointers`);
    this.#keys.add(action.key);
    if (handOn && before === 0 && this.problems.length === 0) this.#onAction(actionFromFile(action));
  }
}

/** The methods a plan's requests use. */
const METHODS = ['POST', 'PATCH', 'PUT', 'DELETE'] as const;

function headerOf(file: Record<string, unknown>): SavedPlanHeader {
  const narrowing = file.narrowing as { targets: unknown[]; excludes: unknown[] };
  return {
    owner: String(file.owner),
    manifestPaths: (file.manifest_paths as unknown[]).map(String),
    narrowing: { targets: narrowing.targets.map(String), excludes: narrowing.excludes.map(String) },
    planKeyId: typeof file.plan_key_id === 'string' ? file.plan_key_id : null,
    desiredHash: String(file.desired_hash),
  };
}

const FORMAT_PROBLEM = 'format_version:';

function isFormatProblem(problems: readonly string[]): boolean {
  return problems[0]?.startsWith(FORMAT_PROBLEM) === true;
}

function kindNamesOf(kinds: readonly Kind[]): ReadonlySet<KindName> {
  return new Set(kinds.map((kind) => kind.name));
}

const KEY_ID = /^[0-9a-f]{16}$/;

/** What is wrong with the file but its changes and actions, which the reader checks one by one. */
function fileProblems(value: unknown, kindNames: ReadonlySet<KindName>): string[] {
  if (!isRecord(value)) return ['expected a JSON object'];
  if (value.format_version !== SAVED_PLAN_FORMAT_VERSION) {
    const found = value.format_version ?? value.formatVersion;
    const older = typeof found === 'number' && found >= 1 && found < SAVED_PLAN_FORMAT_VERSION;
    const hint = older ? ` (a plan saved by an older edgesync, ${olderFormatReason(found)}: plan again)` : '';
    return [
      `${FORMAT_PROBLEM} expected ${SAVED_PLAN_FORMAT_VERSION} (found ${JSON.stringify(found)})${hint}`,
    ];
  }
  const problems: string[] = [];
  if (typeof value.owner !== 'string') problems.push('owner: expected a string');
  if (
    value.plan_key_id !== null &&
    (typeof value.plan_key_id !== 'string' || !KEY_ID.test(value.plan_key_id))
  )
    problems.push('plan_key_id: expected null or 16 hex digits');
  if (typeof value.desired_hash !== 'string') problems.push('desired_hash: expected a string');
  if (
    !Array.isArray(value.manifest_paths) ||
    !value.manifest_paths.every((path) => typeof path === 'string')
  ) {
    problems.push('manifest_paths: expected a list of strings');
  }
  const narrowing = value.narrowing;
  if (
    !isRecord(narrowing) ||
    !Array.isArray(narrowing.targets) ||
    !Array.isArray(narrowing.excludes) ||
    ![...narrowing.targets, ...narrowing.excludes].every((pattern) => isNarrowingPattern(pattern, kindNames))
  ) {
    problems.push('narrowing: expected targets and excludes, each a list of KIND or KIND.NAME');
  }
  if (
    !isRecord(value.fingerprints) ||
    !Object.values(value.fingerprints).every((hash) => typeof hash === 'string')
  ) {
    problems.push('fingerprints: expected a mapping of strings');
  }
  if (
    !isRecord(value.context) ||
    !Object.values(value.context).every(
      (members) => isRecord(members) && Object.values(members).every((hash) => typeof hash === 'string'),
    )
  ) {
    problems.push('context: expected a mapping of mappings of strings');
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
    narrowing: headerOf(file).narrowing,
    planKeyId: headerOf(file).planKeyId,
    desiredHash: String(file.desired_hash),
    fingerprints,
    context: file.context as PlanContext,
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
