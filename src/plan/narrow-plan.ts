import type { DraftAction, DraftChange } from './draft-action.js';
import type { PlanError } from './plan.js';
import type { PlanInputs } from './plan-inputs.js';
import type { PlanOptions } from './planner-options.js';

/** The changes and actions `--target` and `--exclude` keep, and what they could not leave out. */
export interface Narrowed {
  readonly changes: readonly DraftChange[];
  readonly actions: readonly DraftAction[];
  readonly errors: readonly PlanError[];
}

/**
 * Applies targets and excludes; dependencies of a kept action are kept too,
 * or reported when excluded. `dependsOn`: the keys an action waits for.
 */
export function narrowPlan(
  changes: readonly DraftChange[],
  actions: readonly DraftAction[],
  dependsOn: (action: DraftAction) => Iterable<string>,
  options: Pick<PlanOptions, 'targets' | 'excludes'>,
): Narrowed {
  const targets = options.targets ?? [];
  const excludes = options.excludes ?? [];
  const errors: PlanError[] = [];
  if (targets.length === 0 && excludes.length === 0) return { changes, actions, errors };
  const isExcluded = (change: DraftChange): boolean =>
    excludes.some((pattern) => addressMatches(pattern, change));
  const actionByKey = new Map(actions.map((action) => [action.key, action]));
  const changeByAddress = new Map(changes.map((change) => [change.address, change]));
  const keep = new Set<string>();
  const pending: string[] = [];
  for (const change of changes) {
    const targeted = targets.length === 0 || targets.some((pattern) => addressMatches(pattern, change));
    if (targeted && !isExcluded(change)) pending.push(...change.actionKeys);
  }
  while (pending.length > 0) {
    const key = pending.pop() as string;
    if (keep.has(key)) continue;
    keep.add(key);
    const action = actionByKey.get(key);
    if (action === undefined) continue;
    const change = changeByAddress.get(action.change);
    for (const sibling of change?.actionKeys ?? []) pending.push(sibling);
    for (const dependency of dependsOn(action)) {
      const owner = changeByAddress.get(actionByKey.get(dependency)?.change ?? '');
      if (owner !== undefined && isExcluded(owner)) {
        errors.push({
          code: 'excluded_dependency',
          message: `${action.change} depends on ${owner.address}, which --exclude leaves out`,
          ...(action.source ? { source: action.source } : {}),
        });
        continue;
      }
      pending.push(dependency);
    }
  }
  return {
    changes: changes.filter((change) => change.actionKeys.some((key) => keep.has(key))),
    actions: actions.filter((action) => keep.has(action.key)),
    errors,
  };
}

/** `KIND`, `KIND.NAME`, or an address prefix up to a `.` or `[` (a module, a route). */
function addressMatches(pattern: string, draft: DraftChange): boolean {
  const { kind, name, address } = draft;
  return (
    pattern === kind ||
    pattern === `${kind}.${name}` ||
    address === pattern ||
    address.startsWith(`${pattern}.`) ||
    address.startsWith(`${pattern}[`)
  );
}

/**
 * A `--target` that names nothing (no entry of the manifests, no object this
 * owner owns, no change) is a mistake, a typo most often: planning nothing
 * and saying "No changes" would hide it.
 */
export function unmatchedTargets(
  targets: readonly string[],
  known: Iterable<string>,
  changes: readonly DraftChange[],
): PlanError[] {
  const addresses = [...known];
  const names = (pattern: string, address: string): boolean =>
    address === pattern ||
    address.startsWith(`${pattern}.`) ||
    address.startsWith(`${pattern}[`) ||
    pattern.startsWith(`${address}.`) ||
    pattern.startsWith(`${address}[`);
  return targets
    .filter(
      (pattern) =>
        !addresses.some((address) => names(pattern, address)) &&
        !changes.some((change) => addressMatches(pattern, change)),
    )
    .map((pattern) => ({
      code: 'target_not_found',
      message: `--target ${pattern} matches no entry of the manifests and no object this owner owns`,
    }));
}

/**
 * `target_not_found` for each `--target` that names no entry of the
 * manifests, no object this owner owns and no change. The known addresses
 * are listed only when targets ask: at 100,000 entries they are two lists of
 * 100,000.
 */
export function targetsNotFound(inputs: PlanInputs, changes: readonly DraftChange[]): PlanError[] {
  const targets = inputs.options.targets ?? [];
  if (targets.length === 0) return [];
  const owned = [...inputs.managed].flatMap(([kind, byName]) =>
    [...byName.keys()].map((name) => `${kind}.${name}`),
  );
  const desired = inputs.desired.entries.map((entry) => `${entry.kind}.${entry.name}`);
  return unmatchedTargets(targets, [...desired, ...owned], changes);
}
