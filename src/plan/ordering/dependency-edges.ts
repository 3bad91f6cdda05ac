import type { DraftAction } from '../draft-action.js';

/** One dependency an ordering rule found: `waiter` waits for the action whose key is `key`. */
export interface Edge {
  readonly waiter: DraftAction;
  readonly key: string;
}

/**
 * Which actions each drafted action waits for, by key: the edges the
 * ordering rules returned, gathered, kept apart from the drafts. An action
 * waits for nothing until a rule says otherwise; only the actions that wait
 * have a set.
 */
export class DependencyEdges {
  readonly #waitsFor = new Map<DraftAction, Set<string>>();

  /**
   * `found`: the edges of the rules, in the order the rules run, so that each
   * action's keys are in the order they were found, after those of `from`
   * (the edges of the rules that ran before).
   */
  constructor(found: readonly (readonly Edge[])[] = [], from?: DependencyEdges) {
    if (from !== undefined)
      for (const [waiter, keys] of from.#waitsFor) this.#waitsFor.set(waiter, new Set(keys));
    for (const edges of found) for (const { waiter, key } of edges) this.#add(waiter, key);
  }

  #add(waiter: DraftAction, key: string): void {
    const keys = this.#waitsFor.get(waiter);
    if (keys === undefined) this.#waitsFor.set(waiter, new Set([key]));
    else keys.add(key);
  }

  /** The keys `waiter` waits for. */
  of(waiter: DraftAction): ReadonlySet<string> {
    return this.#waitsFor.get(waiter) ?? NOTHING;
  }
}

/** What an action that waits for nothing waits for: shared, never written to. */
const NOTHING: ReadonlySet<string> = new Set();
