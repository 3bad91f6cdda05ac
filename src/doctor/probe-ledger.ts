import type { ApiRequest, EdgeApi } from '../api/edge-api.js';
import { isNotFound } from '../kinds/not-found-code.js';

/** One write that undoes what the probe did: a DELETE of what it made, a PUT of what it found. */
export interface Undo {
  readonly key: string;
  readonly request: ApiRequest;
  /** For people: `the probe CA ca_…`. */
  readonly what: string;
}

/**
 * What `--probe-writes` must undo, newest first. Each write the probe makes
 * is preceded by its undo here, so that however the probe ends (an error,
 * SIGINT) `undoAll` leaves the account as it found it.
 */
export class ProbeLedger {
  readonly #undos: Undo[] = [];

  push(undo: Undo): void {
    this.#undos.push(undo);
  }

  /** The probe undid it itself: nothing left to do for it. */
  settled(key: string): void {
    const index = this.#undos.findIndex((undo) => undo.key === key);
    if (index >= 0) this.#undos.splice(index, 1);
  }

  get pending(): number {
    return this.#undos.length;
  }

  /**
   * Runs every undo, newest first, with no abort signal: an interrupted probe
   * cleans up before it exits. A DELETE answered 404 is done already. Returns
   * what could not be undone.
   */
  async undoAll(api: EdgeApi): Promise<string[]> {
    const failed: string[] = [];
    while (this.#undos.length > 0) {
      const undo = this.#undos.pop() as Undo;
      try {
        await api.request(undo.request);
      } catch (error) {
        if (undo.request.method === 'DELETE' && isNotFound(error)) continue;
        failed.push(`${undo.what}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return failed;
  }
}
