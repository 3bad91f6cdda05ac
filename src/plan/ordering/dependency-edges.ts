import type { DraftAction } from '../draft-action.js';

/**
 * Which actions each drafted action waits for, by key: what the ordering
 * rules decide, kept apart from the drafts. An action waits for nothing
 * until a rule says otherwise; only the actions that wait have a set.
 */
export class DependencyEdges {
  readonly #waitsFor = new Map<DraftAction, Set<string>>();

  /** `edges`: edges to start from (a parked move's own, ordering rule 8). */
  constructor(edges?: DependencyEdges) {
    if (edges !== undefined)
      for (const [waiter, keys] of edges.#waitsFor) this.#waitsFor.set(waiter, new Set(keys));
  }

  /** Makes `waiter` wait for the action with `key`. */
  add(waiter: DraftAction, key: string): void {
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
