import type { KindName } from './kind-name.js';

/** The marker edgesync writes into `metadata` under the reserved key `edgesync`. */
export interface OwnershipMarker {
  readonly owner: string;
  readonly name: string;
  /**
   * The entry had `protect: true` when the marker was written. Kept on the
   * object because an entry removed from the manifests no longer says so:
   * the safety policy never deletes or replaces an object marked this way.
   * Absent (never `false`) otherwise, so older markers read the same.
   */
  readonly protect?: true;
}

/** One object of the account as read, in the same shape the planner compares desired entries in. */
export interface LiveObject {
  readonly kind: KindName;
  readonly id: string;
  readonly createdAt?: string;
  /** Parsed from `metadata`; null when metadata is absent, not a JSON object, or has no valid marker. */
  readonly marker: OwnershipMarker | null;
  /**
   * Manifest shape, normalized (the kind's `fromApi`): Refs reduced to IDs,
   * defaults explicit, CIDRs canonical, `ca_pem` with exactly one trailing
   * newline, `metadata` the user's part (a mapping when the metadata is a
   * JSON object, marker removed; the raw string otherwise; absent when empty).
   * Modules are `null` when unset.
   */
  readonly spec: Readonly<Record<string, unknown>>;
  /** Output-only fields (`addr`, `subject_common_name`, `not_after`, …), for display and export. */
  readonly outputs: Readonly<Record<string, unknown>>;
  /** sha256 (hex) of the canonical JSON of the object exactly as the API returned it. */
  readonly fingerprint: string;
}

export interface LiveStateStats {
  readonly requests: number;
  readonly pages: number;
  readonly durationMs: number;
}

/** The live objects of each kind read (a kind read and found empty holds []). */
export type LiveObjectsByKind = Readonly<Partial<Record<KindName, readonly LiveObject[]>>>;

/** A snapshot of the account: what the planner diffs the desired state against. */
export interface LiveState {
  readonly objects: LiveObjectsByKind;
  /**
   * True only when every page of every list was read and every module read
   * answered. The planner makes no deletes from an incomplete snapshot.
   */
  readonly complete: boolean;
  /** Module-only edges (tcp/tls) that the manifests name but the service answered 404 for. */
  readonly missingIds: readonly string[];
  /**
   * IDs the manifests name of resources edgesync does not list (an IP
   * policy, FieldRule.names) that the service answered 404 for, each read
   * once by ID. Absent when they were not read: nothing is reported then.
   */
  readonly missingNamedIds?: readonly string[];
  readonly stats: LiveStateStats;
}
