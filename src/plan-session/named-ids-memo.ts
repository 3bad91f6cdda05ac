import type { EdgeApi } from '../api/edge-api.js';
import type { Kind } from '../kinds/kind.js';
import type { DesiredState } from '../manifest/desired-state.js';
import { namedIdsToRead, readNamedIds } from './read-named-ids.js';

/**
 * The daemon's read of the named IDs (read-named-ids.ts): it plans every
 * change, so an ID once found is not read again until `forget` (a full read
 * of the account); an ID not found, or newly named, is read before each
 * plan. A policy deleted in between is found at the next full read, or by
 * the write that names it failing for that entry alone.
 */
export class NamedIdsMemo {
  readonly #found = new Set<string>();

  /** The IDs `desired` names that the account lacks, reading only those not known to exist. */
  async missing(
    api: EdgeApi,
    desired: DesiredState,
    kinds: readonly Kind[],
    signal?: AbortSignal,
  ): Promise<string[]> {
    const toRead = new Map([...namedIdsToRead(desired, kinds)].filter(([id]) => !this.#found.has(id)));
    if (toRead.size === 0) return [];
    const missing = await readNamedIds(api, toRead, signal);
    const absent = new Set(missing);
    for (const id of toRead.keys()) if (!absent.has(id)) this.#found.add(id);
    return missing;
  }

  forget(): void {
    this.#found.clear();
  }
}
