import type { FileEvent } from './reconcile/desired-settling.js';

/** Watcher events that say the tree changed, not one file: any file under it may have come, gone or moved. */
const TREE_EVENTS: ReadonlySet<string> = new Set(['retarget', 'addDir', 'unlinkDir', 'tree']);

/** The file events that arrived since the last run took them: each path with its last event. */
export class PendingEvents {
  #firstAt: number | null = null;
  #events = new Map<string, FileEvent>();

  /** An event of the watcher at `now` (clock milliseconds). */
  note(change: { readonly event: string; readonly path: string }, now: number): void {
    this.#firstAt ??= now;
    const tree = TREE_EVENTS.has(change.event) || this.#events.get(change.path)?.tree === true;
    this.#events.set(change.path, { path: change.path, at: now, tree });
  }

  /** What arrived since the last take, and the time of its first event (null when nothing did). */
  take(): { readonly firstAt: number | null; readonly events: readonly FileEvent[] } {
    const taken = { firstAt: this.#firstAt, events: [...this.#events.values()] };
    this.#firstAt = null;
    this.#events = new Map();
    return taken;
  }
}
