import type { KindName } from '../kinds/kind-name.js';
import { type DraftAction, type DraftChange, plainAction } from './draft-action.js';
import type { Drafts } from './drafts.js';
import { EntryCreate } from './entry-create.js';
import type { Narrowed } from './narrow-plan.js';
import { NONE } from './no-strings.js';
import type { Dependencies } from './ordering/decide-dependencies.js';
import type { DependencyEdges } from './ordering/dependency-edges.js';
import type { Action, PlanError, ResourceChange } from './plan.js';
import type { PlanInputs } from './plan-inputs.js';
import { inOrder, topologicalOrder } from './topological-order.js';

/** The plan's changes and actions in their final order, each action with the keys it waits for. */
export interface SortedActions {
  /** The (narrowed) drafts in registry order: the changes the safety rules judge. */
  readonly drafts: readonly DraftChange[];
  /** The same changes as the plan lists them: narrowing may leave some of their action keys out. */
  readonly changes: readonly ResourceChange[];
  /** Topologically sorted; in registry order when they wait on each other in a cycle. */
  readonly actions: readonly Action[];
  /** The cycle, when there is one. */
  readonly errors: readonly PlanError[];
}

/**
 * The phase after narrowing: changes and actions in registry order, the
 * actions then topologically sorted by their dependency edges, each with the
 * keys it waits for that are still in the plan.
 */
export function sortActions(
  inputs: PlanInputs,
  drafts: Drafts,
  dependencies: Pick<Dependencies, 'edges' | 'order'>,
  narrowed: Narrowed,
): SortedActions {
  const { edges } = dependencies;
  const kindOrder = new Map([...inputs.kindsByName.keys()].map((kind, index) => [kind, index]));
  const kindIndex = (kind: KindName): number => kindOrder.get(kind) ?? -1;
  const sortedDrafts = inKindOrder(narrowed.changes, (draft) => kindIndex(draft.kind));
  const isNarrowed = narrowed.actions !== drafts.actions;
  const keys = plannedKeysAskedAbout(narrowed.actions, narrowed.changes, edges, isNarrowed);
  const inOrderOfKinds = inKindOrder(narrowed.actions, (action) => kindIndex(action.kind));
  const nodes: Action[] = inOrderOfKinds.map((action) => {
    const dependsOn = keptDependencies(edges.of(action), keys);
    return action instanceof EntryCreate ? action.waitingFor(dependsOn) : plainAction(action, dependsOn);
  });
  // The drafted change is the plan's, not a copy: a copy of each of 100,000 changes sat next to the
  // drafts at the plan's peak. Narrowing may leave some of its action keys out.
  const changes: readonly ResourceChange[] = isNarrowed
    ? sortedDrafts.map((draft) => narrowedChange(draft, keys))
    : sortedDrafts;
  // Every drafted action, in the drafts' order and with the same dependencies: the order the edges
  // gave them (phase 4) is theirs, not worked out again for 100,000 actions.
  const { order } = dependencies;
  const ordered =
    order !== undefined && !isNarrowed && inOrderOfKinds === drafts.actions
      ? ({ ok: true, order: inOrder(nodes, order) } as const)
      : topologicalOrder(nodes, (action) => action.dependsOn);
  if (ordered.ok) return { drafts: sortedDrafts, changes, actions: ordered.order, errors: [] };
  return {
    drafts: sortedDrafts,
    changes,
    actions: nodes,
    errors: [
      {
        code: 'dependency_cycle',
        message: `the actions depend on each other in a cycle: ${ordered.cycle.join(', ')}`,
      },
    ],
  };
}

/** Sorted; a list of its own length when nothing is left out (a filtered copy holds 17 slots, kept per action). */
function keptDependencies(dependsOn: ReadonlySet<string>, keys: ReadonlySet<string>): readonly string[] {
  if (dependsOn.size === 0) return NONE;
  const kept = [...dependsOn];
  return (kept.every((key) => keys.has(key)) ? kept : kept.filter((key) => keys.has(key))).sort();
}

/**
 * The items by their kind's place in the registry, in drafted order within a
 * kind (Array.prototype.sort is stable): the list itself when already so, as
 * a plan of one kind is. Sorted without a { item, position } pair per item,
 * 100,000 of them next to the drafts at the plan's peak.
 */
function inKindOrder<T>(items: readonly T[], kindIndexOf: (item: T) => number): readonly T[] {
  for (let at = 1; at < items.length; at += 1) {
    if (kindIndexOf(items[at - 1] as T) > kindIndexOf(items[at] as T))
      return items.slice().sort((a, b) => kindIndexOf(a) - kindIndexOf(b));
  }
  return items;
}

/**
 * The keys of drafted actions that are asked about: those actions wait for,
 * and, when targets or excludes left actions out, those changes list. Unless
 * narrowed, a change lists only keys of drafted actions (drafting and
 * parking keep the two together), so its keys are not asked about.
 * A set of every key was ~4 MB at 100,000 creates, most of which nothing
 * waits for.
 */
function plannedKeysAskedAbout(
  actions: readonly DraftAction[],
  changes: readonly DraftChange[],
  edges: DependencyEdges,
  isNarrowed: boolean,
): ReadonlySet<string> {
  const asked = new Set<string>();
  for (const action of actions) for (const key of edges.of(action)) asked.add(key);
  if (isNarrowed) for (const draft of changes) for (const key of draft.actionKeys) asked.add(key);
  const planned = new Set<string>();
  for (const action of actions) if (asked.has(action.key)) planned.add(action.key);
  return planned;
}

/**
 * The change with only the keys still in the plan: the draft itself, when
 * none was left out (as always for an EntryCreateChange, whose one action is
 * the reason it is in the plan), or given the list of those kept.
 */
function narrowedChange(draft: DraftChange, keys: ReadonlySet<string>): ResourceChange {
  const drafted = draft.actionKeys;
  const kept = keptKeys(drafted, keys);
  // A copy, the drafts left as drafted: only a plain change can lose a key (a create's one action is why it is here).
  return kept === drafted ? draft : { ...draft, actionKeys: kept };
}

/**
 * The keys still in the plan: the drafted list itself when none was left out
 * (a filtered copy holds 17 slots for one key, kept per change).
 */
function keptKeys(drafted: readonly string[], keys: ReadonlySet<string>): readonly string[] {
  return drafted.every((key) => keys.has(key)) ? drafted : drafted.filter((key) => keys.has(key));
}
