import type { Action, Plan } from '../../plan/plan.js';

/** Why an action was taken out of a plan: it was asked for, or it waits for one that was. */
export interface Withheld {
  readonly action: Action;
  /** The key of the action it was asked to leave out that this one waits for (itself when it was asked for). */
  readonly cause: string;
}

export interface PlanWithout {
  /** The plan with the actions left out, and the changes that kept none of theirs. */
  readonly plan: Plan;
  /** Every action left out, in the plan's order. */
  readonly withheld: readonly Withheld[];
}

/**
 * The plan without the actions `leaveOut` accepts and every action that
 * waits for one of them, directly or not; with `wholeEntries`, also every
 * other action of an entry (kind and name) that lost one, and what waits for
 * those. What remains holds everything each of its actions waits for, so it
 * is a set the executor could have reached on its way through the whole plan
 * (as when an action fails and what depends on it is skipped): the ordering
 * rules hold for it as they do for the whole plan, and access never widens
 * beyond what the plan allows between the old and the new state.
 */
export function planWithout(
  plan: Plan,
  leaveOut: (action: Action) => boolean,
  options: { readonly wholeEntries: boolean },
): PlanWithout {
  const seeds = plan.actions.filter(leaveOut);
  if (seeds.length === 0) return { plan, withheld: [] };
  const entryOf = (action: Action): string => `${action.kind}\u0000${action.name}`;
  const dependents = new Map<string, Action[]>();
  const byEntry = new Map<string, Action[]>();
  for (const action of plan.actions) {
    for (const dependency of action.dependsOn) {
      const list = dependents.get(dependency);
      if (list === undefined) dependents.set(dependency, [action]);
      else list.push(action);
    }
    if (!options.wholeEntries) continue;
    const list = byEntry.get(entryOf(action));
    if (list === undefined) byEntry.set(entryOf(action), [action]);
    else list.push(action);
  }
  const cause = new Map<string, string>();
  const entriesOut = new Set<string>();
  const pending: Action[] = [];
  const remove = (action: Action, because: string): void => {
    if (cause.has(action.key)) return;
    cause.set(action.key, because);
    pending.push(action);
  };
  for (const action of seeds) remove(action, action.key);
  while (pending.length > 0) {
    const action = pending.pop() as Action;
    const because = cause.get(action.key) as string;
    for (const dependent of dependents.get(action.key) ?? []) remove(dependent, because);
    if (!options.wholeEntries || entriesOut.has(entryOf(action))) continue;
    entriesOut.add(entryOf(action));
    for (const sibling of byEntry.get(entryOf(action)) ?? []) remove(sibling, because);
  }
  const actions = plan.actions.filter((action) => !cause.has(action.key));
  const kept = new Set(actions.map((action) => action.key));
  return {
    plan: {
      ...plan,
      actions,
      changes: plan.changes.filter((change) => change.actionKeys.some((key) => kept.has(key))),
    },
    withheld: plan.actions.flatMap((action) => {
      const because = cause.get(action.key);
      return because === undefined ? [] : [{ action, cause: because }];
    }),
  };
}
