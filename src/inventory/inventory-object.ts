import type { KindName } from '../kinds/kind-name.js';
import type { SyncState } from '../sync-state.js';

/**
 * One object the owner manages, as `edgesync get`, a daemon's `/inventory`
 * and the status page list it: the manifest entry or owned object, its ID
 * on the account, and how it stands against Git in the one vocabulary
 * (`src/sync-state.ts`). Names of fields only, never their values: an
 * inventory is shown to whoever may read the listener.
 */
export interface InventoryObject {
  readonly kind: KindName;
  readonly name: string;
  /** The object's ID on the account; null while it is yet to be created. */
  readonly id: string | null;
  readonly state: SyncState;
  /**
   * Why it is not in sync, in words: for `skipped` the planner's code and
   * message, otherwise what is to be done (`create`, `update`, `delete: not
   * in the manifests`). null when in sync.
   */
  readonly reason: string | null;
  /** The fields that differ (`cidr`, `routes[edghtsrt_…].oidc`), in the plan's order; [] for a create or in sync. */
  readonly fields: readonly string[];
  /** `file:line` of the entry; null for an owned object no manifest holds. */
  readonly source: string | null;
}

/** How many objects are in each state; every state is present. */
export type InventoryCounts = Readonly<Record<SyncState, number>>;
